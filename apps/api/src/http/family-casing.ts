import type { ApiFamily } from '../../../../libs/event-webhooks/src';

/** `consecutiveFailures` -> `consecutive_failures`. */
export function snakeCase(key: string): string {
  return key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/**
 * The one difference between the two API families' JSON: v3 is camelCase, v2 snake_case. Keys
 * are renamed at every depth; values (event types, URLs, response bodies) are left alone.
 */
export function inFamilyCase<T>(value: T, family: ApiFamily): T {
  return family === 'v2' ? (renameKeys(value) as T) : value;
}

function renameKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(renameKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [snakeCase(key), renameKeys(inner)]));
}
