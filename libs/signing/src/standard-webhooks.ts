import { anyEqual } from './safe-equal';
import { hmacSha256, type Payload } from './hmac';
import { WEBHOOK_ID_HEADER, WEBHOOK_SIGNATURE_HEADER, WEBHOOK_TIMESTAMP_HEADER } from './headers';
import { standardWebhookKey } from './secret';
import { malformedHeader, passes, SignatureError } from './signature.errors';
import { assertTimestampSeconds, assertWithinTolerance, parseUnixSeconds, type VerifyOptions } from './tolerance';

/**
 * Standard Webhooks (https://www.standardwebhooks.com): `webhook-signature` is one `v1,<base64>` per
 * secret, space-separated, newest first; each is HMAC-SHA256 keyed with the base64-decoded part after
 * `whsec_`, of `webhook-id + "." + webhook-timestamp + "." + rawBody`.
 */

export interface StandardWebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** Headers as a framework hands them over (`req.headers` in Express or Fastify); names are matched case-insensitively. */
export type IncomingHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** The base64 signature of one secret (without the `v1,` prefix). */
export function computeStandardWebhookSignature(secret: string, id: string, body: Payload, timestamp: number): string {
  return hmacSha256(standardWebhookKey(secret), `${id}.${timestamp}.`, body).toString('base64');
}

/** The `webhook-signature` value for `secrets` (newest first): `v1,<new> v1,<old>`. */
export function signStandardWebhook(secrets: readonly string[], id: string, body: Payload, timestamp: number): string {
  if (!Array.isArray(secrets) || secrets.length === 0) {
    throw new RangeError('At least one secret is needed to sign');
  }
  if (typeof id !== 'string' || id.length === 0) {
    throw new TypeError('The webhook id must be a non-empty string');
  }
  assertTimestampSeconds(timestamp);
  return secrets.map((secret) => `v1,${computeStandardWebhookSignature(secret, id, body, timestamp)}`).join(' ');
}

/**
 * Verifies the Standard Webhooks headers against the raw body and ONE secret; it passes when any
 * `v1,` signature matches (other versions, such as `v1a,`, are ignored). Throws `SignatureError`
 * with the same codes as `verify`.
 */
export function verifyStandardWebhook(
  rawBody: Payload,
  headers: StandardWebhookHeaders | IncomingHeaders,
  secret: string,
  options: VerifyOptions = {},
): void {
  const id = readHeader(headers, WEBHOOK_ID_HEADER);
  const timestampText = readHeader(headers, WEBHOOK_TIMESTAMP_HEADER);
  const signatureText = readHeader(headers, WEBHOOK_SIGNATURE_HEADER);

  const timestamp = parseUnixSeconds(timestampText.trim());
  if (timestamp === undefined) throw malformedHeader(`${WEBHOOK_TIMESTAMP_HEADER} is not Unix seconds`);
  const signatures = signatureText
    .split(' ')
    .filter((part) => part.startsWith('v1,'))
    .map((part) => part.slice('v1,'.length))
    .filter((signature) => signature !== '');
  if (signatures.length === 0) throw malformedHeader(`${WEBHOOK_SIGNATURE_HEADER} has no v1, signature`);

  const expected = computeStandardWebhookSignature(secret, id, rawBody, timestamp);
  if (!anyEqual(expected, signatures)) {
    throw new SignatureError('no_matching_signature', 'No signature in the header matches the body and secret');
  }
  assertWithinTolerance(timestamp, options);
}

/** {@link verifyStandardWebhook} as a boolean: false on any `SignatureError`. */
export function isValidStandardWebhook(
  rawBody: Payload,
  headers: StandardWebhookHeaders | IncomingHeaders,
  secret: string,
  options: VerifyOptions = {},
): boolean {
  return passes(() => verifyStandardWebhook(rawBody, headers, secret, options));
}

function readHeader(headers: StandardWebhookHeaders | IncomingHeaders, name: string): string {
  if (headers === null || typeof headers !== 'object') throw malformedHeader('No headers were given');
  const entries = headers as IncomingHeaders;
  const key = name in entries ? name : Object.keys(entries).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : entries[key];
  if (typeof value !== 'string' || value.trim() === '') {
    throw malformedHeader(`${name} is missing, empty or repeated`);
  }
  return value;
}
