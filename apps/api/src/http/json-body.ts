import { isUtf8 } from 'node:buffer';
import type { FastifyInstance } from 'fastify';
import { DomainError } from '../../../../libs/kernel/src';

const NOT_UTF8 = 'the request body is not valid UTF-8 (JSON text is UTF-8)';

/**
 * The body's text, or a DomainError when its bytes are not UTF-8: decoding them anyway would
 * store U+FFFD in place of what the client sent (RFC 8259 §8.1: JSON exchanged between systems
 * is UTF-8, whatever a charset parameter says).
 */
export function utf8Body(body: Buffer): string | DomainError {
  return isUtf8(body) ? body.toString('utf8') : new DomainError('invalid_json', NOT_UTF8);
}

/**
 * The app-wide `application/json` parser: Fastify's own (prototype-poisoning checks included),
 * with three differences.
 * - An empty body (clients that set the header on every request) is no body, as it is without the
 *   header: routes whose body is optional accept it, the others answer that the body must be a
 *   JSON object.
 * - Bytes that are not UTF-8 are `invalid_json`, never decoded into replacement characters.
 * - A body that is JSON but holds a `__proto__` key (or `constructor.prototype`) is
 *   `invalid_parameter` naming it, not `invalid_json`: it parses, the server refuses it.
 * `/hooks/{token}` has its own parser (HooksRoute): a trigger body must be JSON, so an empty one is
 * invalid_json there.
 */
export function installJsonBodyParser(fastify: FastifyInstance): void {
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const buffer = body as Buffer;
    if (buffer.length === 0) return done(null, undefined);
    const text = utf8Body(buffer);
    if (text instanceof DomainError) return done(text, undefined);
    parseJson(request, text, (error, value) => done(error && parsesAsJson(text) ? poisoned() : error, value));
  });
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function poisoned(): DomainError {
  return new DomainError('invalid_parameter', 'the request body holds a "__proto__" key, or a "constructor" key holding "prototype"; such keys are refused');
}
