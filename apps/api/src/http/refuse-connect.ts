import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { redactUrl } from '../../../../libs/adapters/logging/logger';
import { requestIdFrom } from '../../../../libs/kernel/src';
import { answerOnSocketAndClose } from './raw-answer';

/**
 * CONNECT: Node hands it to the server's 'connect' listeners, never to Fastify, and without one
 * closes the connection unanswered. No route takes it, as no route takes PROPFIND: `404 not_found`
 * with the caller's request id and an access line, after the answers owed to requests pipelined
 * before it; then the connection is ended.
 */
export function refuseConnect(server: Server, accessLog: Logger): void {
  server.on('connect', (request: IncomingMessage, socket: Duplex) => {
    const requestId = requestIdFrom(request.headers['x-request-id']);
    answerOnSocketAndClose(socket, 404, { code: 'not_found', message: 'no such route' }, requestId);
    accessLog.info({ requestId, method: 'CONNECT', url: redactUrl(request.url ?? ''), status: 404, durationMs: 0 }, 'request completed');
  });
}
