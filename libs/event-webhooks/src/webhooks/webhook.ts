import { characterCount, checkTargetUrl, isWellFormedText, NOT_TEXT } from '../../../kernel/src';
import { EventCatalog } from '../catalog/event-catalog';
import { invalidWebhookParameter, webhookLimitExceeded } from '../event-webhooks.errors';

/** The API family a webhook was created through; its deliveries carry it as `apiVersion`. */
export type ApiFamily = 'v3' | 'v2';
export type WebhookState = 'enabled' | 'disabled';
/** Why a webhook is disabled: by the failure counter, or by the disable route. */
export type DisabledReason = 'consecutive_failures' | 'manual';

export const MAX_WEBHOOKS_PER_ACCOUNT = 20;
export const MAX_EVENTS_PER_WEBHOOK = 50;
export const MAX_DESCRIPTION_LENGTH = 500;

export interface Webhook {
  id: string;
  accountId: number;
  url: string;
  events: string[];
  description: string | null;
  state: WebhookState;
  apiVersion: ApiFamily;
  consecutiveFailures: number;
  disabledAt: Date | null;
  /** Null while enabled. */
  disabledReason: DisabledReason | null;
  createdAt: Date;
  updatedAt: Date;
  /** The signing secret, sealed with the SecretBox. */
  sealedSecret: string;
  /** The secrets rotated out that still sign, sealed together (previous-secrets.ts). */
  sealedPreviousSecret: string | null;
  /** When the last of them stops signing. */
  previousSecretExpiresAt: Date | null;
  /** Its receiver asked (Retry-After) that no call start before this; null when it never did. */
  pausedUntil: Date | null;
}

/** What the API shows of a webhook: no account, no secrets. */
export type WebhookView = Pick<
  Webhook,
  'id' | 'url' | 'events' | 'description' | 'state' | 'apiVersion' | 'consecutiveFailures' | 'disabledAt' | 'disabledReason' | 'createdAt' | 'updatedAt'
>;

export function viewOf(webhook: Webhook): WebhookView {
  const { id, url, events, description, state, apiVersion, consecutiveFailures, disabledAt, disabledReason, createdAt, updatedAt } = webhook;
  return { id, url, events, description, state, apiVersion, consecutiveFailures, disabledAt, disabledReason, createdAt, updatedAt };
}

export function subscribes(webhook: Pick<Webhook, 'events'>, type: string): boolean {
  return webhook.events.includes(type);
}

/** The contract's rules for `events`: more than 50 is limit_exceeded (checked first), then 1..50 distinct catalog types. */
export function checkEvents(events: unknown, catalog: EventCatalog): string[] {
  if (!Array.isArray(events)) throw invalidWebhookParameter('events must be an array of event types');
  if (events.length > MAX_EVENTS_PER_WEBHOOK) {
    throw webhookLimitExceeded(`a webhook subscribes to at most ${MAX_EVENTS_PER_WEBHOOK} event types, got ${events.length}`);
  }
  if (events.length === 0) throw invalidWebhookParameter('events must name at least one event type');
  const seen = new Set<string>();
  for (const [index, type] of events.entries()) {
    if (typeof type !== 'string') throw invalidWebhookParameter(`events[${index}] must be a string`);
    if (!catalog.has(type)) throw invalidWebhookParameter(`events[${index}]: unknown event type ${JSON.stringify(type.slice(0, 100))}`);
    if (seen.has(type)) throw invalidWebhookParameter(`events[${index}]: ${type} is listed twice`);
    seen.add(type);
  }
  return [...seen];
}

/** Absolute http(s), at most 2048 characters, no literal private address unless allowed. */
export function checkUrl(url: unknown, allowPrivate: boolean): string {
  if (typeof url !== 'string') throw invalidWebhookParameter('url must be a string');
  const result = checkTargetUrl(url, { allowPrivate });
  if (!result.ok) throw invalidWebhookParameter(result.message);
  return url;
}

export function checkDescription(description: unknown): string | null {
  if (description === undefined || description === null) return null;
  if (typeof description !== 'string') throw invalidWebhookParameter('description must be a string');
  if (characterCount(description) > MAX_DESCRIPTION_LENGTH) {
    throw invalidWebhookParameter(`description must be at most ${MAX_DESCRIPTION_LENGTH} characters`);
  }
  if (!isWellFormedText(description)) throw invalidWebhookParameter(NOT_TEXT('description'));
  return description;
}
