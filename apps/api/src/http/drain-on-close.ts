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
 *   Node sends a pipelining client's answers in order, so the ones before it still get out;
 * - the server stops accepting connections at once, but closes its idle ones only when no request
 *   came for DRAIN_QUIET_MS (DRAIN_LIMIT_MS at most): Node counts a connection between two requests
 *   as idle, so a busy client's next request, already in the socket but not yet read, met a reset
 *   (16 of 16 back-to-back connections did) where it now gets the 503 above.
 */
export function drainOnClose(fastify: FastifyInstance): void {
  let closing = false;
  let lastRequestAt = 0;
  fastify.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  // http.Server#close calls this before it stops listening.
  const server = fastify.server;
  const closeIdleConnections = server.closeIdleConnections.bind(server);
  const openConnections = () => new Promise<number>((resolve) => server.getConnections((error, count) => resolve(error ? 0 : count)));
  server.closeIdleConnections = () => void fallQuiet(() => lastRequestAt, openConnections).then(closeIdleConnections);
  fastify.addHook('onRequest', (request, _reply, done) => {
    const socket = request.raw.socket as CountingSocket;
    socket[RECEIVED] = (request.raw as RankedRequest)[RANK] = (socket[RECEIVED] ?? 0) + 1;
    lastRequestAt = performance.now();
    done(closing ? new DomainError('unavailable', 'the server is shutting down; nothing was accepted, retry', 1) : undefined);
  });
  fastify.addHook('onSend', (request, reply, payload, done) => {
    if (closing && (request.raw as RankedRequest)[RANK] === (request.raw.socket as CountingSocket)[RECEIVED]) void reply.header('connection', 'close');
    done(null, payload);
  });
}

const DRAIN_QUIET_MS = 200;
const DRAIN_LIMIT_MS = 2_000;

/**
 * Resolves once no connection is open, or DRAIN_QUIET_MS passed since the close began and since the
 * last request, or after DRAIN_LIMIT_MS.
 */
async function fallQuiet(lastRequestAt: () => number, openConnections: () => Promise<number>): Promise<void> {
  const since = performance.now();
  const quietFor = () => performance.now() - Math.max(since, lastRequestAt());
  const settled = async () => quietFor() >= DRAIN_QUIET_MS || performance.now() - since >= DRAIN_LIMIT_MS || (await openConnections()) === 0;
  for (;;) {
    while (!(await settled())) await new Promise((resolve) => setTimeout(resolve, 20));
    // After the loop stalled (a loaded machine), timers run before the poll phase reads the requests
    // that came meanwhile: look again once it has, or their connections would pass for idle.
    await new Promise((resolve) => setImmediate(resolve));
    if (await settled()) return;
  }
}
