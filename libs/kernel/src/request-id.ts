import { randomUUID } from 'node:crypto';

/**
 * The `x-request-id` of an answer (CONTRACT 9.4): the caller's own when it sent one of 1 to 128
 * characters of `[A-Za-z0-9._:-]`, else a new one. Every HTTP surface of the server (the API, the
 * dispatcher's health port) answers with it.
 */
export function requestIdFrom(header: string | string[] | undefined): string {
  return typeof header === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(header) ? header : randomUUID();
}
