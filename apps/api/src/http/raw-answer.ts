import { randomUUID } from 'node:crypto';
import { type IncomingMessage, STATUS_CODES, type ServerResponse } from 'node:http';
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

/** Connections whose last request was answered before its body arrived in full, until that body ends. */
const answeredBeforeItsBody = new WeakSet<object>();

/**
 * `request` was answered before its body was read (a 401, a 413): Node reads the rest of that body
 * to reach the next request, and a parse error in it belongs to the request answered.
 */
export function noteAnsweredBeforeItsBody(request: IncomingMessage): void {
  const socket = request.socket;
  answeredBeforeItsBody.add(socket);
  request.once('end', () => answeredBeforeItsBody.delete(socket));
}

/**
 * The bytes Node's parser refused lie in the body of a request it already handed over (answered, or
 * about to be, before its body was read: a 401): that request's answer is the connection's last;
 * another one would be read as the answer to the client's next request. Closes the connection once
 * that answer is written and returns true; false when the refused bytes begin a request of their own.
 */
export function closeIfInAnsweredBody(socket: Duplex): boolean {
  const pending = (socket as HttpSocket)._httpMessage as (ServerResponse & { req?: { complete: boolean } }) | null | undefined;
  if (!answeredBeforeItsBody.has(socket) && !(pending?.req && !pending.req.complete)) return false;
  afterPendingAnswers(socket as HttpSocket, () => socket.destroy());
  return true;
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
 * header could be read, once. Undefined otherwise (the answer then gets a new id, as a request
 * with the header twice does).
 */
export function requestIdInRefusedBytes(error: { code?: string; rawPacket?: unknown; bytesParsed?: unknown }): string | undefined {
  if (!Buffer.isBuffer(error.rawPacket)) return undefined;
  const text = error.rawPacket.toString('latin1');
  const stoppedAt = typeof error.bytesParsed === 'number' ? Math.min(error.bytesParsed, text.length) : text.length;
  const head = failingHead(text, stoppedAt, error.code === 'HPE_HEADER_OVERFLOW');
  if (head === undefined) return undefined;
  const values = [...head.matchAll(/\r\nx-request-id[ \t]*:[ \t]*([^\r\n]*?)[ \t]*(?=\r\n|$)/gi)].map((match) => match[1]);
  return values.length === 1 ? values[0] : undefined;
}

/**
 * The head of the request the parser stopped in: the requests before it in the chunk are walked
 * head by head, each followed by its Content-Length body (a chunked one cannot be walked: none is
 * read then). A head too large ends where the parser stopped (at its blank line at the latest);
 * another error stops inside the head or at the first bytes of the request that failed.
 */
function failingHead(text: string, stoppedAt: number, tooLarge: boolean): string | undefined {
  let start = 0;
  while (start <= text.length) {
    const end = text.indexOf('\r\n\r\n', start);
    if (end === -1) return text.slice(start);
    const next = end + 4;
    if (stoppedAt < next || (tooLarge && stoppedAt === next)) return text.slice(start, end + 2);
    const head = text.slice(start, end);
    if (/\r\ntransfer-encoding[ \t]*:/i.test(head)) return undefined;
    const length = /\r\ncontent-length[ \t]*:[ \t]*(\d{1,15})[ \t]*(?=\r\n|$)/i.exec(head);
    start = next + (length ? Number(length[1]) : 0);
  }
  return undefined;
}
