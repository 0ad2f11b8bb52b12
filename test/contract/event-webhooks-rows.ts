import { NewDelivery, StoredEvent, Webhook } from '../../libs/event-webhooks/src';
import { newId } from '../../libs/kernel/src';

/** Rows of the event-webhooks ports for storage tests: whole, valid, and overridable field by field. */

export function webhookRow(accountId: number, at: Date, overrides: Partial<Webhook> = {}): Webhook {
  return {
    id: newId('wh', at.getTime()),
    accountId,
    url: 'https://hooks.example.com/in',
    events: ['email.delivered'],
    description: null,
    state: 'enabled',
    apiVersion: 'v3',
    consecutiveFailures: 0,
    disabledAt: null,
    disabledReason: null,
    createdAt: at,
    updatedAt: at,
    sealedSecret: 'sealed-1',
    sealedPreviousSecret: null,
    previousSecretExpiresAt: null,
    pausedUntil: null,
    ...overrides,
  };
}

/** An event with both families' envelopes; `created` in Unix seconds. */
export function eventRow(accountId: number, at: Date, created = Math.floor(at.getTime() / 1000), id = newId('evt', at.getTime())): StoredEvent {
  return {
    id,
    accountId,
    type: 'email.delivered',
    created,
    receivedAt: at,
    bodies: { v3: `{"id":"${id}","apiVersion":"v3"}`, v2: `{"id":"${id}","apiVersion":"v2"}` },
  };
}

/** A pending delivery of `event` to `webhook`, due at once. */
export function deliveryRow(webhook: Webhook, event: Pick<StoredEvent, 'id' | 'type'>, at: Date, overrides: Partial<NewDelivery> = {}): NewDelivery {
  return {
    id: newId('del', (overrides.createdAt ?? at).getTime()),
    webhookId: webhook.id,
    accountId: webhook.accountId,
    eventId: event.id,
    eventType: event.type,
    apiVersion: webhook.apiVersion,
    status: 'pending',
    nextAttemptAt: at,
    createdAt: at,
    retryStep: 0,
    seq: 0,
    attemptCount: 0,
    test: false,
    ...overrides,
  };
}
