import { webhooksControllerFor } from './webhooks-controller.factory';

/** `/v2/webhooks...`: the Email / SMS API family, snake_case JSON. */
export const V2WebhooksController = webhooksControllerFor({ family: 'v2', path: 'v2/webhooks' });
