import { newId } from '../../../kernel/src';
import { NewDelivery } from '../deliveries/delivery.repository';
import type { ApiFamily, Webhook } from '../webhooks/webhook';
import { EnvelopeSource, serializeEnvelope } from './envelope';
import { StoredEvent } from './event.repository';

export interface FanOut {
  event: StoredEvent;
  deliveries: NewDelivery[];
}

/**
 * One delivery per target webhook: `pending` and due now when it is enabled, `skipped` when it is
 * disabled (kept so that `recover` can bring it back). The envelope is serialized once per API
 * family among the targets.
 */
export function fanOut(event: EnvelopeSource, targets: readonly Webhook[], now: Date, options: { test: boolean } = { test: false }): FanOut {
  const bodies: Partial<Record<ApiFamily, string>> = {};
  const deliveries = targets.map((webhook): NewDelivery => {
    bodies[webhook.apiVersion] ??= serializeEnvelope(event, webhook.apiVersion);
    const enabled = webhook.state === 'enabled';
    return {
      id: newId('del', now.getTime()),
      webhookId: webhook.id,
      accountId: webhook.accountId,
      eventId: event.id,
      eventType: event.type,
      apiVersion: webhook.apiVersion,
      status: enabled ? 'pending' : 'skipped',
      nextAttemptAt: enabled ? now : null,
      createdAt: now,
      retryStep: 0,
      seq: 0,
      attemptCount: 0,
      test: options.test,
    };
  });
  // The feed shows every event, subscribed or not: one envelope is always kept (it derives the other family's).
  if (Object.keys(bodies).length === 0) bodies.v3 = serializeEnvelope(event, 'v3');
  return {
    event: { id: event.id, accountId: event.account.id, type: event.type, created: event.created, receivedAt: now, bodies },
    deliveries,
  };
}
