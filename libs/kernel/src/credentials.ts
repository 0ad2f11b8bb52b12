import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Compares a presented token with the configured one in constant time (both hashed first). */
export function tokensMatch(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/** `Authorization: Bearer <token>` → token; anything else (absent, repeated, other scheme) → null. */
export function bearerToken(header: string | string[] | undefined): string | null {
  if (typeof header !== 'string') return null;
  const match = /^Bearer ([\x21-\x7e]{1,512})$/.exec(header.trim());
  return match ? match[1] : null;
}

export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}
