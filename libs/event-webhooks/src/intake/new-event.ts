import { isTooFarAhead, tooFarAheadMessage, type NewEvent } from '../../../kernel/src';
import { EventCatalog } from '../catalog/event-catalog';
import { invalidWebhookParameter } from '../event-webhooks.errors';

export const MAX_EVENTS_PER_BATCH = 1000;
/** `evt_` and up to 60 more characters: producers may bring their own ids (idempotency keys). */
export const EVENT_ID_PATTERN = /^evt_[A-Za-z0-9_-]{1,60}$/;
/** 9999-12-31T23:59:59Z: larger values are most likely milliseconds sent by mistake. */
const MAX_UNIX_SECONDS = 253_402_300_799;
const FIELDS = new Set(['accountId', 'type', 'data', 'id', 'created']);

/**
 * The intake's check of one event, whoever sends it (the /internal routes, the send-status
 * module): shape, known type, `data` valid against the type's schema, `created` not ahead of `nowMs`
 * by more than clocks drift. `where` prefixes messages (`events[3].`) in a batch.
 */
export function checkNewEvent(raw: unknown, catalog: EventCatalog, nowMs: number, where = ''): NewEvent {
  if (!isPlainObject(raw)) throw invalidWebhookParameter(`${where ? where.slice(0, -1) : 'the event'} must be a JSON object`);
  for (const key of Object.keys(raw)) {
    if (!FIELDS.has(key)) throw invalidWebhookParameter(`${where}${key} is not an accepted field`);
  }
  const { accountId, type, data, id, created } = raw;
  if (typeof accountId !== 'number' || !Number.isSafeInteger(accountId) || accountId < 1) {
    throw invalidWebhookParameter(`${where}accountId must be a positive integer`);
  }
  if (typeof type !== 'string') throw invalidWebhookParameter(`${where}type must be a string`);
  if (!catalog.has(type)) throw invalidWebhookParameter(`${where}type: unknown event type ${JSON.stringify(type.slice(0, 100))}`);
  if (catalog.get(type)!.operational) throw invalidWebhookParameter(`${where}type: ${type} is emitted by the server itself and cannot be published`);
  if (!isPlainObject(data)) throw invalidWebhookParameter(`${where}data must be a JSON object`);
  const check = catalog.checkData(type, data);
  if (!check.ok) throw invalidWebhookParameter(`${where}${check.message}`);
  if (id !== undefined && (typeof id !== 'string' || !EVENT_ID_PATTERN.test(id))) {
    throw invalidWebhookParameter(`${where}id must start with evt_ followed by 1 to 60 letters, digits, _ or -`);
  }
  if (created !== undefined && (typeof created !== 'number' || !Number.isSafeInteger(created) || created < 0 || created > MAX_UNIX_SECONDS)) {
    throw invalidWebhookParameter(`${where}created must be Unix time in seconds`);
  }
  if (created !== undefined && isTooFarAhead(created * 1000, nowMs)) {
    throw invalidWebhookParameter(tooFarAheadMessage(`${where}created`));
  }
  return { accountId, type, data, ...(id === undefined ? {} : { id }), ...(created === undefined ? {} : { created }) };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
