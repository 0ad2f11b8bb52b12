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

export function encodeEnvelope(id: string, prior: number, failures: number, payloadJson: string): string {
  const count = (n: number) => Math.max(0, Math.floor(n));
  return `{"id":${JSON.stringify(id)},"prior":${count(prior)},"failures":${count(failures)},"payload":${payloadJson}}`;
}

export function decodeEnvelope(text: string): WorkEnvelope {
  const body = JSON.parse(text) as Partial<WorkEnvelope>;
  if (typeof body?.id !== 'string' || typeof body.prior !== 'number' || !body.payload || typeof body.payload !== 'object') {
    throw new Error('not a work envelope');
  }
  return { id: body.id, prior: body.prior, failures: typeof body.failures === 'number' ? body.failures : 0, payload: body.payload };
}
