import { randomBytes } from 'node:crypto';

/** Prefix of every webhook signing secret. */
export const SECRET_PREFIX = 'whsec_';

const SECRET_BYTES = 32;
const STANDARD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A new signing secret: `whsec_` + standard base64 of 32 random bytes. */
export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/**
 * The HMAC key of the Stripe-style signatures (`X-Service-Signature`, `X-Service-Automation-Signature`):
 * the UTF-8 bytes of the whole string, `whsec_` prefix included.
 */
export function serviceSignatureKey(secret: string): Buffer {
  if (typeof secret !== 'string' || secret.length === 0) {
    throw new TypeError('A signing secret must be a non-empty string');
  }
  return Buffer.from(secret, 'utf8');
}

/**
 * The HMAC key of the Standard Webhooks signature: the base64-decoded part after `whsec_`
 * (a secret without the prefix is decoded whole, as the `standardwebhooks` package does).
 */
export function standardWebhookKey(secret: string): Buffer {
  if (typeof secret !== 'string') {
    throw new TypeError('A signing secret must be a string');
  }
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (encoded.length === 0 || !STANDARD_BASE64.test(encoded)) {
    throw new TypeError('A Standard Webhooks secret must be "whsec_" followed by standard base64');
  }
  return Buffer.from(encoded, 'base64');
}
