import { DeliveryRepository } from '../deliveries/delivery.repository';
import { DisabledReason } from './webhook';
import { WebhookRepository } from './webhook.repository';

/**
 * enabled -> disabled, by the user or by the failure counter: deliveries still waiting become
 * `skipped` (recover brings them back). Call inside a unit of work.
 */
export async function disableWebhook(webhooks: WebhookRepository, deliveries: DeliveryRepository, id: string, at: Date, reason: DisabledReason): Promise<void> {
  if (await webhooks.disable(id, at, reason)) await deliveries.settleWaiting(id, 'skipped');
}
