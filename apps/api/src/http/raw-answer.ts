import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/** Node's own field: the answer it is writing on a connection (the next pipelined one is assigned when it finishes). */
type HttpSocket = Duplex & { _httpMessage?: ServerResponse | null };

/** A connection answered this way is gone within this time, whether or not its client reads. */
const CLOSE_WITHIN_MS = 5_000;

/**
 * An answer written straight to a connection, for a request Fastify never saw (Node's parser
 * refused it, or a CONNECT), in the contract's shape, then the connection closed. It waits for the
 * answers Node still owes to requests pipelined before it, which go first, in order; and it closes
 * the connection once all of it is handed to the kernel (destroying it at once dropped what was
 * still buffered), or after CLOSE_WITHIN_MS at most.
 */
export function answerOnSocketAndClose(socket: Duplex, status: number, error: { code: string; message: string }, requestId: string = randomUUID()): void {
  afterPendingAnswers(socket as HttpSocket, () => {
    if (!socket.writable) return socket.destroy();
    const body = JSON.stringify(error);
    setTimeout(() => socket.destroy(), CLOSE_WITHIN_MS).unref();
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nX-Request-Id: ${requestId}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`,
      () => socket.destroy(),
    );
  });
}

/**
 * Runs `then` once no answer is owed on the connection. An answer Node is writing is its
 * `_httpMessage` until its 'finish', whose first listener (Node's own) assigns the next one: so
 * each is waited for by its 'finish' event. (Its `writableFinished` is no guide: an answer ended
 * before it had the connection reads finished as soon as its bytes are handed over.)
 */
function afterPendingAnswers(socket: HttpSocket, then: () => void): void {
  const pending = socket._httpMessage;
  if (!pending) return then();
  pending.once('finish', () => {
    if (!socket.destroyed) afterPendingAnswers(socket, then);
  });
}

/**
 * The caller's `x-request-id` in the bytes Node's parser refused (`rawPacket`, the chunk it was
 * reading, and `bytesParsed`, where it stopped), read from the head of the request that failed:
 * an answer to a request Fastify never saw still carries the caller's id (CONTRACT 9.4) when the
 * header could be read. Undefined otherwise (the answer then gets a new id).
 */
export function requestIdInRefusedBytes(error: { rawPacket?: unknown; bytesParsed?: unknown }): string | undefined {
  if (!Buffer.isBuffer(error.rawPacket)) return undefined;
  const text = error.rawPacket.toString('latin1');
  const stoppedAt = typeof error.bytesParsed === 'number' ? Math.min(error.bytesParsed, text.length) : text.length;
  // The failing request starts after the last complete head before where the parser stopped.
  const start = stoppedAt > 0 ? text.lastIndexOf('\r\n\r\n', stoppedAt - 1) + 1 : 0;
  const match = /\r\nx-request-id[ \t]*:[ \t]*([^\r\n]*?)[ \t]*\r\n/i.exec(text.slice(start));
  return match ? match[1] : undefined;
}
