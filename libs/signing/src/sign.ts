import type { Payload } from './hmac';
import { signServiceSignature } from './service-signature';
import { signStandardWebhook } from './standard-webhooks';

export interface SignInput {
  /** The endpoint's valid secrets, newest first (two during the 24 h after a rotation). */
  secrets: readonly string[];
  /** The exact body that will be sent. */
  body: Payload;
  /** Unix seconds; becomes `t=` and `webhook-timestamp`. */
  timestamp: number;
  /** The event id; becomes `webhook-id`. */
  id: string;
}

export interface SignedHeaders {
  /** Value of `X-Service-Signature`. */
  signature: string;
  /** Value of `webhook-id`. */
  webhookId: string;
  /** Value of `webhook-timestamp`. */
  webhookTimestamp: string;
  /** Value of `webhook-signature`. */
  webhookSignature: string;
}

/** Every signature header of one delivery: the Stripe-style one and the Standard Webhooks ones. */
export function sign({ secrets, body, timestamp, id }: SignInput): SignedHeaders {
  return {
    signature: signServiceSignature(secrets, body, timestamp),
    webhookId: id,
    webhookTimestamp: String(timestamp),
    webhookSignature: signStandardWebhook(secrets, id, body, timestamp),
  };
}
