import type { Readable } from 'node:stream';

/**
 * Reads at most `limit` bytes of a response body and stops: the stream is destroyed as soon as
 * the limit is reached (undici then closes the connection instead of buffering or draining the
 * rest), so a huge answer costs `limit` bytes and returns at once.
 */
export async function readBodyPrefix(body: Readable, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  let reachedLimit = false;
  try {
    for await (const chunk of body) {
      const buf: Buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
      const room = limit - total;
      const part = buf.length > room ? buf.subarray(0, room) : buf;
      chunks.push(part);
      total += part.length;
      if (total >= limit) {
        reachedLimit = true;
        break; // the iterator's return() destroys the stream
      }
    }
  } finally {
    if (!body.destroyed && !body.readableEnded) body.destroy();
  }
  return decodeUtf8Prefix(Buffer.concat(chunks, total), reachedLimit);
}

/**
 * Decodes UTF-8; when `cut` (the bytes are a prefix of a longer body), an incomplete character at
 * the end is dropped rather than turned into U+FFFD, so the text ends on a character boundary.
 */
export function decodeUtf8Prefix(bytes: Uint8Array, cut: boolean): string {
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes, { stream: cut });
}
