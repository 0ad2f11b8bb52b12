import type { Readable } from 'node:stream';

/**
 * Reads at most `limit` bytes of a response body and stops: the stream is destroyed as soon as
 * the limit is reached (undici then closes the connection instead of buffering or draining the
 * rest), so a huge answer costs `limit` bytes and returns at once. A stream that fails, or closes
 * before its end, rejects. Plain listeners rather than `for await`: an async iterator costs every
 * call a few kilobytes of promises and wrappers, and nearly every answer here is a few bytes.
 */
export function readBodyPrefix(body: Readable, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    // The error listener stays: destroying an undici body at the limit emits an abort error, which
    // must not go unhandled (once settled, a later reject is a no-op).
    const stop = () => {
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('close', onClose);
    };
    const onData = (chunk: Buffer | string) => {
      const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
      const room = limit - total;
      const part = buf.length > room ? buf.subarray(0, room) : buf;
      chunks.push(part);
      total += part.length;
      if (total < limit) return;
      stop();
      body.destroy();
      resolve(decodeUtf8Prefix(Buffer.concat(chunks, total), true));
    };
    const onEnd = () => {
      stop();
      resolve(decodeUtf8Prefix(Buffer.concat(chunks, total), false));
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    const onClose = () => {
      stop();
      reject(Object.assign(new Error('the response closed before its end'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
    };
    body.on('data', onData);
    body.on('end', onEnd);
    body.on('error', onError);
    body.on('close', onClose);
  });
}

/**
 * Decodes UTF-8; when `cut` (the bytes are a prefix of a longer body), an incomplete character at
 * the end is dropped rather than turned into U+FFFD, so the text ends on a character boundary.
 */
export function decodeUtf8Prefix(bytes: Uint8Array, cut: boolean): string {
  if (!cut) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes, { stream: true });
}
