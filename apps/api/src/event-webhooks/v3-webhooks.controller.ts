import { webhooksControllerFor } from './webhooks-controller.factory';

/** `/v3/Webhook...`: the CRM API family, camelCase JSON. */
export const V3WebhooksController = webhooksControllerFor({ family: 'v3', path: 'v3/Webhook' });
