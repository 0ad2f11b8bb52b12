import { randomBytes, timingSafeEqual } from 'node:crypto';
import { sha256 } from './digest';

/** Digests of the configured tokens (a handful, fixed at start-up), so a request hashes only its own. */
const expectedDigests = new Map<string, Buffer>();

/** Compares a presented token with the configured one in constant time (both hashed first). */
export function tokensMatch(presented: string, expected: string): boolean {
  let b = expectedDigests.get(expected);
  if (!b) {
    b = sha256(expected);
    if (expectedDigests.size < 16) expectedDigests.set(expected, b);
  }
  return timingSafeEqual(sha256(presented), b);
}

/**
 * `Authorization: Bearer <token>` → token; anything else (absent, repeated, other scheme) → null.
 * The scheme is case-insensitive and may be followed by several spaces (RFC 7235 §2.1).
 */
export function bearerToken(header: string | string[] | undefined): string | null {
  if (typeof header !== 'string') return null;
  const match = /^bearer +([\x21-\x7e]{1,512})$/i.exec(header.trim());
  return match ? match[1] : null;
}

export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}
