import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../../kernel/src';

const KEY_PREFIX = 'sk_';
/** Characters of a key shown in listings (`sk_` and 5 random ones: 30 bits, not enough to guess the rest). */
export const API_KEY_PREFIX_LENGTH = 8;

/** A new API key: `sk_` + 256 random bits in base64url. */
export function generateApiKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

export function hashApiKey(key: string): string {
  return sha256Hex(key);
}

export function apiKeyHint(key: string): string {
  return key.slice(-4);
}

export function apiKeyPrefix(key: string): string {
  return key.slice(0, API_KEY_PREFIX_LENGTH);
}
