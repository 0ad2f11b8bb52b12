import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { DomainError } from '../../../../libs/kernel/src';

/** Requests a connection received so far, and each request's rank among them. */
const RECEIVED = Symbol('requests received');
const RANK = Symbol('rank on its connection');
type CountingSocket = Socket & { [RECEIVED]?: number };
type RankedRequest = IncomingMessage & { [RANK]?: number };

/**
 * How the API lets go of its connections once Fastify closes (SIGTERM: Nest closes it after the
 * workers stopped). Replaces Fastify's `return503OnClosing`, whose answer is not in the contract's
 * shape:
 * - a request that still arrives on an open connection is refused before any work: 503
 *   `unavailable` with Retry-After, for the client or balancer to retry elsewhere;
 * - the answer to the last request a connection received closes it (`Connection: close`): a
 *   keep-alive connection left open would hold the shutdown until the keep-alive timeout (72 s).
 *   Node sends a pipelining client's answers in order, so the ones before it still get out.
 */
export function drainOnClose(fastify: FastifyInstance): void {
  let closing = false;
  fastify.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  fastify.addHook('onRequest', (request, _reply, done) => {
    const socket = request.raw.socket as CountingSocket;
    socket[RECEIVED] = (request.raw as RankedRequest)[RANK] = (socket[RECEIVED] ?? 0) + 1;
    done(closing ? new DomainError('unavailable', 'the server is shutting down; nothing was accepted, retry', 1) : undefined);
  });
  fastify.addHook('onSend', (request, reply, payload, done) => {
    if (closing && (request.raw as RankedRequest)[RANK] === (request.raw.socket as CountingSocket)[RECEIVED]) void reply.header('connection', 'close');
    done(null, payload);
  });
}
