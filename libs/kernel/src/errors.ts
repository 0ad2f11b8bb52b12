/**
 * Error codes of the public contract (CONTRACT §1). Domain code throws DomainError with one of
 * these; the API maps each code to its HTTP status in one place.
 */
export type ErrorCode =
  | 'invalid_parameter'
  | 'invalid_json'
  | 'limit_exceeded'
  | 'unauthorized'
  | 'not_found'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'unavailable'
  | 'internal_error';

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Seconds a client should wait before retrying (`rate_limited`, `unavailable`), sent as Retry-After. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const invalidParameter = (message: string) => new DomainError('invalid_parameter', message);
export const notFound = (message: string) => new DomainError('not_found', message);
export const limitExceeded = (message: string) => new DomainError('limit_exceeded', message);
export const unavailable = (message: string) => new DomainError('unavailable', message);

/** Characters of a caller's value an error message repeats at most. */
const ECHO_MAX = 100;

/**
 * A value the caller sent (an id in a path), as an error message repeats it: control characters
 * shown as `?`, and cut after ECHO_MAX characters, so a message stays one short line whatever was sent.
 */
export function echoed(value: string): string {
  const printable = value.replace(/[\u0000-\u001f\u007f]/g, '?');
  return printable.length > ECHO_MAX ? `${printable.slice(0, ECHO_MAX)}…` : printable;
}
