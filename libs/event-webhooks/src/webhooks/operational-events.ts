import type { Attempt } from '../deliveries/delivery';
import { EventIntakeService } from '../intake/event-intake.service';
import { DisabledReason, Webhook } from './webhook';

/** `webhook.failing` is emitted when the failure counter reaches half of the disabling count, rounded up. */
export function failingThreshold(disableAfter: number): number {
  return Math.ceil(disableAfter / 2);
}

/**
 * Whether a counter that went from `before` to `after` consecutive failures crossed the failing
 * threshold: true once per run of failures, since a run only counts up until a success or
 * `enable` resets it.
 */
export function crossedFailing(before: number, after: number, disableAfter: number): boolean {
  const threshold = failingThreshold(disableAfter);
  return before < threshold && after >= threshold;
}

/**
 * The server's own events about a webhook (CONTRACT §9.1), published through the intake to the
 * account's other webhooks that subscribe to them. Call inside the unit of work that changes
 * what they report.
 */
export class OperationalEvents {
  constructor(private readonly intake: EventIntakeService) {}

  failing(webhook: Webhook, consecutiveFailures: number, lastAttempt: Pick<Attempt, 'at' | 'httpStatus' | 'error'>): Promise<string> {
    return this.intake.publishAbout(webhook, 'webhook.failing', {
      webhookId: webhook.id,
      url: webhook.url,
      consecutiveFailures,
      lastAttempt: { at: lastAttempt.at.toISOString(), httpStatus: lastAttempt.httpStatus, error: lastAttempt.error },
    });
  }

  disabled(webhook: Webhook, reason: DisabledReason, consecutiveFailures: number, at: Date): Promise<string> {
    return this.intake.publishAbout(webhook, 'webhook.disabled', {
      webhookId: webhook.id,
      url: webhook.url,
      reason,
      consecutiveFailures,
      disabledAt: at.toISOString(),
    });
  }
}
