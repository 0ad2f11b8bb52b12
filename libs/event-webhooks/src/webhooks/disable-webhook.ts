import { DeliveryRepository } from '../deliveries/delivery.repository';
import { WebhookRepository } from './webhook.repository';

/**
 * enabled -> disabled, by the user or by the failure counter: deliveries still waiting become
 * `skipped` (recover brings them back). Call inside a unit of work.
 */
export async function disableWebhook(webhooks: WebhookRepository, deliveries: DeliveryRepository, id: string, at: Date): Promise<void> {
  if (await webhooks.disable(id, at)) await deliveries.settleWaiting(id, 'skipped');
}
