import { timingSafeEqual } from 'node:crypto';

/**
 * Constant-time comparison of two strings' exact bytes (so `ABC` never equals `abc`).
 * Only the length can leak, and both sides of a signature have a public, fixed length.
 */
export function safeEqual(expected: string, candidate: string): boolean {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(candidate, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** True when any candidate equals `expected`; every candidate is compared, matched or not. */
export function anyEqual(expected: string, candidates: readonly string[]): boolean {
  let matched = false;
  for (const candidate of candidates) {
    matched = safeEqual(expected, candidate) || matched;
  }
  return matched;
}
