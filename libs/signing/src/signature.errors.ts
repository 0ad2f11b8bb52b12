/**
 * Why a signature was rejected.
 *
 * - `malformed_header`: a header is missing, empty or cannot be parsed (no `t=`, no `v1=`,
 *   a timestamp that is not a whole number of seconds, no `webhook-id`, ...).
 * - `timestamp_out_of_tolerance`: the signature is authentic but `|now - t| >= toleranceSec`
 *   (a replay, or a clock that is off).
 * - `no_matching_signature`: no `v1` in the header matches the body under the given secret.
 */
export type SignatureErrorCode = 'malformed_header' | 'timestamp_out_of_tolerance' | 'no_matching_signature';

export class SignatureError extends Error {
  constructor(
    readonly code: SignatureErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'SignatureError';
  }
}

export const malformedHeader = (message: string) => new SignatureError('malformed_header', message);

/** Runs a verification: true when it passes, false on a `SignatureError`; any other error is rethrown. */
export function passes(check: () => void): boolean {
  try {
    check();
    return true;
  } catch (error) {
    if (error instanceof SignatureError) return false;
    throw error;
  }
}
