import { createHmac } from 'node:crypto';

/** A raw body exactly as sent or received: a string is taken as its UTF-8 bytes. */
export type Payload = string | Uint8Array;

/** HMAC-SHA256 over `prefix + body`, where `prefix` is text and `body` is the exact bytes. */
export function hmacSha256(key: Uint8Array, prefix: string, body: Payload): Buffer {
  const hmac = createHmac('sha256', key);
  hmac.update(prefix, 'utf8');
  if (typeof body === 'string') {
    hmac.update(body, 'utf8');
  } else if (body instanceof Uint8Array) {
    hmac.update(body);
  } else {
    throw new TypeError('The body must be the raw body: a string or a Buffer');
  }
  return hmac.digest();
}
