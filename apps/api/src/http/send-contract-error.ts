import type { FastifyReply, FastifyRequest } from 'fastify';
import { statusOf } from './error-status';
import { toContractError } from './to-contract-error';

/** Writes the contract's error body; internal errors are logged (with the request id), never shown. */
export function sendContractError(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const { code, message, retryAfterSeconds } = toContractError(error);
  const status = statusOf(code);
  if (status >= 500 && code === 'internal_error') {
    request.log.error({ err: error }, 'unhandled error');
  }
  // Errors the router raises before any hook ran still carry the request id.
  if (!reply.hasHeader('x-request-id')) void reply.header('x-request-id', request.id);
  if (retryAfterSeconds !== undefined) void reply.header('retry-after', String(Math.max(1, Math.ceil(retryAfterSeconds))));
  void reply.status(status).type('application/json; charset=utf-8').send(JSON.stringify({ code, message }));
}
