import { DeliveryRepository } from '../deliveries/delivery.repository';
import { OperationalEvents } from './operational-events';
import { DisabledReason, Webhook } from './webhook';
import { WebhookRepository } from './webhook.repository';

export interface DisablePorts {
  webhooks: WebhookRepository;
  deliveries: DeliveryRepository;
  notices: OperationalEvents;
}

/** What a disabled webhook's waiting deliveries become. */
export const SETTLED_BY_DISABLE = 'skipped';

/**
 * enabled -> disabled, by the user or by the failure counter: deliveries still waiting become
 * `skipped` (recover brings them back) and `webhook.disabled` goes to the account's other
 * webhooks. False when it was already disabled (or is gone). Call inside a unit of work. By
 * failures, the counter stops at `consecutiveFailures` (the threshold: failures recorded in the same
 * batch after the one that reached it came after the webhook was disabled, and count no more).
 */
export async function disableWebhook(
  { webhooks, deliveries, notices }: DisablePorts,
  webhook: Webhook,
  at: Date,
  reason: DisabledReason,
  consecutiveFailures: number,
): Promise<boolean> {
  if (!(await webhooks.disable(webhook.id, at, reason, reason === 'consecutive_failures' ? consecutiveFailures : undefined))) return false;
  await deliveries.settleWaiting(webhook.id, SETTLED_BY_DISABLE);
  await notices.disabled(webhook, reason, consecutiveFailures, at);
  return true;
}
