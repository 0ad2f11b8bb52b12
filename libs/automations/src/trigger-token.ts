import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../../kernel/src';

/** Random bytes of a trigger token: 256 bits. */
export const TRIGGER_TOKEN_BYTES = 32;

/** A new trigger token: 256 random bits in base64url (43 characters), the last part of `/hooks/<token>`. */
export function generateTriggerToken(): string {
  return randomBytes(TRIGGER_TOKEN_BYTES).toString('base64url');
}

/**
 * What is stored and looked up instead of the token: its SHA-256 in hex. The token carries 256
 * random bits, so a fast hash is enough (nothing to brute-force), and a database leak reveals no URL.
 */
export function hashTriggerToken(token: string): string {
  return sha256Hex(token);
}
