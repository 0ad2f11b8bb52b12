import { anyEqual } from './safe-equal';
import { hmacSha256, type Payload } from './hmac';
import { serviceSignatureKey } from './secret';
import { malformedHeader, passes, SignatureError } from './signature.errors';
import { assertTimestampSeconds, assertWithinTolerance, parseUnixSeconds, type VerifyOptions } from './tolerance';

/**
 * Stripe-style signature, the value of `X-Service-Signature` (event deliveries) and of
 * `X-Service-Automation-Signature` (webhook-target calls): `t=<unix>,v1=<hex>[,v1=<hex>...]`.
 *
 * Each `v1` is the lowercase hex HMAC-SHA256, keyed with the UTF-8 bytes of the whole secret string
 * (`whsec_...`, or a webhook target's key string as is), of `t + "." + rawBody`.
 */

export interface ParsedSignatureHeader {
  timestamp: number;
  /** Every `v1` value in the order of the header (newest secret first). */
  signatures: string[];
}

/** The lowercase hex `v1` of one secret. */
export function computeServiceSignature(secret: string, body: Payload, timestamp: number): string {
  return hmacSha256(serviceSignatureKey(secret), `${timestamp}.`, body).toString('hex');
}

/**
 * The header value for `secrets` (newest first, one `v1=` each): `t=...,v1=<new>,v1=<old>`.
 * Also the `X-Service-Automation-Signature` value when `secrets` is `[target.signingKey]`.
 */
export function signServiceSignature(secrets: readonly string[], body: Payload, timestamp: number): string {
  if (!Array.isArray(secrets) || secrets.length === 0) {
    throw new RangeError('At least one secret is needed to sign');
  }
  assertTimestampSeconds(timestamp);
  const v1s = secrets.map((secret) => `v1=${computeServiceSignature(secret, body, timestamp)}`);
  return [`t=${timestamp}`, ...v1s].join(',');
}

/**
 * Parses `t=<unix>,v1=<sig>,...`. Other schemes (`v0=`, ...) are ignored, like Stripe does.
 * Throws `SignatureError('malformed_header')` when there is no single valid `t` or no non-empty `v1`.
 */
export function parseSignatureHeader(header: string): ParsedSignatureHeader {
  if (typeof header !== 'string' || header.trim() === '') {
    throw malformedHeader('The signature header is missing or empty');
  }
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const item of header.split(',')) {
    const eq = item.indexOf('=');
    if (eq < 0) continue;
    const key = item.slice(0, eq).trim();
    const value = item.slice(eq + 1).trim();
    if (key === 't') {
      if (timestamp !== undefined) throw malformedHeader('The signature header has more than one t=');
      timestamp = parseUnixSeconds(value);
      if (timestamp === undefined) throw malformedHeader('The signature header t= is not Unix seconds');
    } else if (key === 'v1' && value !== '') {
      signatures.push(value);
    }
  }
  if (timestamp === undefined) throw malformedHeader('The signature header has no t=');
  if (signatures.length === 0) throw malformedHeader('The signature header has no v1=');
  return { timestamp, signatures };
}

/**
 * Verifies a Stripe-style header (`X-Service-Signature` or `X-Service-Automation-Signature`) against
 * the raw body and ONE secret; it passes when any `v1` matches. Throws `SignatureError` with code
 * `malformed_header`, `no_matching_signature`, or `timestamp_out_of_tolerance` (checked after the
 * signature, so that code means an authentic but stale or future delivery).
 */
export function verify(rawBody: Payload, header: string, secret: string, options: VerifyOptions = {}): void {
  const { timestamp, signatures } = parseSignatureHeader(header);
  const expected = computeServiceSignature(secret, rawBody, timestamp);
  if (!anyEqual(expected, signatures)) {
    throw new SignatureError('no_matching_signature', 'No signature in the header matches the body and secret');
  }
  assertWithinTolerance(timestamp, options);
}

/** {@link verify} as a boolean: false on any `SignatureError` (other errors, e.g. bad options, still throw). */
export function isValid(rawBody: Payload, header: string, secret: string, options: VerifyOptions = {}): boolean {
  return passes(() => verify(rawBody, header, secret, options));
}
