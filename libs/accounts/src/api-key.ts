import { createHash, randomBytes } from 'node:crypto';

const KEY_PREFIX = 'sk_';

/** A new API key: `sk_` + 256 random bits in base64url. */
export function generateApiKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function apiKeyHint(key: string): string {
  return key.slice(-4);
}
