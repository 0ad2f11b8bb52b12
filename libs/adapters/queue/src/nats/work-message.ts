/**
 * The body of a work message. Besides the payload it carries the work id and the deliveries
 * before this publish, so a retry (re-published under a new outbox row id, which is the
 * Nats-Msg-Id JetStream deduplicates on) keeps its id and continues its delivery count.
 */
export interface WorkEnvelope {
  id: string;
  prior: number;
  /** Handler failures before this publish (absent in messages of older versions: 0). */
  failures: number;
  payload: Record<string, unknown>;
}

/**
 * Items one message carries at most. Items published together share a message (a JSON array of
 * envelopes): one publish and one ack for many items, where a JetStream publish per item cost the
 * API about half of its time at intake. A consumer budgets this many items per message it asks for.
 */
export const MAX_ITEMS_PER_MESSAGE = 32;

export function encodeEnvelope(id: string, prior: number, failures: number, payloadJson: string): string {
  const count = (n: number) => Math.max(0, Math.floor(n));
  return `{"id":${JSON.stringify(id)},"prior":${count(prior)},"failures":${count(failures)},"payload":${payloadJson}}`;
}

/** One envelope alone (as older versions wrote every message), several as an array. */
export function encodeMessage(envelopes: string[]): string {
  if (envelopes.length === 0 || envelopes.length > MAX_ITEMS_PER_MESSAGE) throw new RangeError(`a message carries 1 to ${MAX_ITEMS_PER_MESSAGE} items, not ${envelopes.length}`);
  return envelopes.length === 1 ? envelopes[0] : `[${envelopes.join(',')}]`;
}

export function decodeMessage(text: string): WorkEnvelope[] {
  const body: unknown = JSON.parse(text);
  const envelopes = Array.isArray(body) ? body : [body];
  if (envelopes.length === 0) throw new Error('not a work envelope');
  return envelopes.map(checkEnvelope);
}

function checkEnvelope(value: unknown): WorkEnvelope {
  const body = value as Partial<WorkEnvelope> | null;
  if (typeof body?.id !== 'string' || typeof body.prior !== 'number' || !body.payload || typeof body.payload !== 'object') {
    throw new Error('not a work envelope');
  }
  return { id: body.id, prior: body.prior, failures: typeof body.failures === 'number' ? body.failures : 0, payload: body.payload };
}
