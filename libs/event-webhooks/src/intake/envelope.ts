import type { ApiFamily } from '../webhooks/webhook';

export interface EnvelopeSource {
  id: string;
  type: string;
  /** Unix seconds. */
  created: number;
  account: { id: number; name: string };
  data: Record<string, unknown>;
}

/**
 * The delivery body (CONTRACT §3), keys in the contract's order. Serialized once at intake and
 * stored: every attempt sends these exact bytes, which is what receivers verify the signature over.
 */
export function serializeEnvelope(event: EnvelopeSource, apiVersion: ApiFamily): string {
  return JSON.stringify({
    id: event.id,
    type: event.type,
    created: event.created,
    apiVersion,
    account: { id: event.account.id, name: event.account.name },
    data: event.data,
  });
}
