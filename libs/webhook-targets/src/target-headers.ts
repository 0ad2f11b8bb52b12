import { invalidParameter } from '../../kernel/src';

/** Bounds of a target's custom headers. */
export const TARGET_HEADER_LIMITS = { maxCount: 20, maxNameLength: 256, maxValueLength: 4096, maxTotalLength: 16_384 } as const;

/**
 * Headers a target may not set, lowercase: the ones the server writes itself (CONTRACT §6), the ones
 * that describe the body it produces, and the hop-by-hop ones that would change how the request
 * travels (RFC 9110 §7.6.1) or that the HTTP client refuses outright.
 */
export const RESERVED_TARGET_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'content-length',
  'content-type',
  'content-encoding',
  'x-service-automation-signature',
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
]);

/** RFC 9110 token: the characters a header name may use. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Field value: visible ASCII, space, tab and obs-text; no CR, LF, NUL or other control characters. */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * Validates the `headers` of a target: an object of string values, names as HTTP tokens, values
 * without CR/LF/NUL, bounded in count and size, no reserved name, no name twice in different case.
 * Returns a copy holding exactly the given names and values.
 */
export function validateTargetHeaders(input: unknown): Record<string, string> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw invalidParameter('headers must be an object of header names to string values');
  }
  const entries = Object.entries(input);
  if (entries.length > TARGET_HEADER_LIMITS.maxCount) {
    throw invalidParameter(`headers may hold at most ${TARGET_HEADER_LIMITS.maxCount} entries`);
  }
  const seen = new Set<string>();
  const headers: Record<string, string> = {};
  let total = 0;
  for (const [name, value] of entries) {
    if (name.length === 0 || name.length > TARGET_HEADER_LIMITS.maxNameLength || !TOKEN.test(name)) {
      throw invalidParameter(`headers: ${JSON.stringify(name.slice(0, 64))} is not a valid header name`);
    }
    const lower = name.toLowerCase();
    if (RESERVED_TARGET_HEADERS.has(lower)) {
      throw invalidParameter(`headers: ${name} is set by the server and cannot be configured`);
    }
    if (seen.has(lower)) throw invalidParameter(`headers: ${name} is given more than once`);
    seen.add(lower);
    if (typeof value !== 'string') throw invalidParameter(`headers.${name} must be a string`);
    if (/[\r\n\0]/.test(value)) throw invalidParameter(`headers.${name} must not contain CR, LF or NUL characters`);
    if (!FIELD_VALUE.test(value)) throw invalidParameter(`headers.${name} holds characters not allowed in an HTTP header value`);
    if (value.length > TARGET_HEADER_LIMITS.maxValueLength) {
      throw invalidParameter(`headers.${name} must be at most ${TARGET_HEADER_LIMITS.maxValueLength} characters`);
    }
    total += name.length + value.length;
    if (total > TARGET_HEADER_LIMITS.maxTotalLength) {
      throw invalidParameter(`headers must total at most ${TARGET_HEADER_LIMITS.maxTotalLength} characters`);
    }
    Object.defineProperty(headers, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return headers;
}
