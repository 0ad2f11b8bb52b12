import { randomBytes } from 'node:crypto';
import { invalidParameter, isWellFormedText, NOT_TEXT } from '../../kernel/src';

/** Prefix of a generated target signing key (so secret scanners can recognise one). */
export const SIGNING_KEY_PREFIX = 'tsk_';
export const SIGNING_KEY_LENGTH = { min: 16, max: 512 } as const;

/** A new target signing key: `tsk_` + 256 random bits in base64url. */
export function generateSigningKey(): string {
  return SIGNING_KEY_PREFIX + randomBytes(32).toString('base64url');
}

/** A user-chosen key: 16 to 512 characters, no control characters. */
export function checkSigningKey(key: string): string {
  if (key.length < SIGNING_KEY_LENGTH.min || key.length > SIGNING_KEY_LENGTH.max) {
    throw invalidParameter(`signingKey must be ${SIGNING_KEY_LENGTH.min} to ${SIGNING_KEY_LENGTH.max} characters`);
  }
  if (/[\x00-\x1f\x7f]/.test(key)) throw invalidParameter('signingKey must not contain control characters');
  // Its UTF-8 bytes are the HMAC key: a lone surrogate has none (the server would sign with U+FFFD).
  if (!isWellFormedText(key)) throw invalidParameter(NOT_TEXT('signingKey'));
  return key;
}
