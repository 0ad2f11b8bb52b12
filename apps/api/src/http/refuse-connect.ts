import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { redactUrl } from '../../../../libs/adapters/logging/logger';
import { requestIdFrom } from '../../../../libs/kernel/src';
import { answerOnSocketAndClose } from './raw-answer';

/** Node's own field: the answer it is writing on a connection (the next pipelined one follows it). */
type HttpSocket = Duplex & { _httpMessage?: ServerResponse | null };

/**
 * CONNECT: Node hands it to the server's 'connect' listeners, never to Fastify, and without one
 * closes the connection unanswered. No route takes it, as no route takes PROPFIND: `404 not_found`
 * with the caller's request id, an access line, and the connection closed, after the answers Node
 * still owes to requests pipelined before it (written first, in order).
 */
export function refuseConnect(server: Server, accessLog: Logger): void {
  server.on('connect', (request: IncomingMessage, socket: Duplex) => {
    const requestId = requestIdFrom(request.headers['x-request-id']);
    afterPendingAnswers(socket as HttpSocket, () => {
      answerOnSocketAndClose(socket, 404, { code: 'not_found', message: 'no such route' }, requestId);
      accessLog.info({ requestId, method: 'CONNECT', url: redactUrl(request.url ?? ''), status: 404, durationMs: 0 }, 'request completed');
    });
  });
}

function afterPendingAnswers(socket: HttpSocket, then: () => void): void {
  const pending = socket._httpMessage;
  if (!pending || pending.writableFinished) return then();
  // Node's own 'finish' listener, added first, has by then moved the connection to the next answer.
  pending.once('finish', () => {
    if (!socket.destroyed) afterPendingAnswers(socket, then);
  });
}
