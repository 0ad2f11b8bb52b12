import { isUtf8 } from 'node:buffer';
import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';
import { DomainError } from '../../../../libs/kernel/src';

const BYTE_ORDER_MARK = 0xfeff;
const NOT_UTF8 = 'the request body is not valid UTF-8 (JSON text is UTF-8)';

/**
 * The body's text, or a DomainError:
 * - 415 for a `Content-Encoding` other than identity: the server does not decompress, and would
 *   read a compressed body as text, or take a plain body labelled gzip;
 * - invalid_json when its bytes are not UTF-8: decoding them anyway would store U+FFFD in place of
 *   what the client sent (RFC 8259 §8.1: JSON exchanged between systems is UTF-8, whatever a
 *   charset parameter says).
 * A leading byte order mark is dropped (§8.1 lets a parser ignore one): the app-wide parser ignored
 * it already, and a trigger body, stored as text, would otherwise be refused as invalid_json.
 */
export function jsonBodyText(request: FastifyRequest, body: Buffer): string | DomainError {
  const encoding = request.headers['content-encoding'];
  if (encoding !== undefined && !/^\s*identity\s*$/i.test(String(encoding))) {
    return new DomainError('unsupported_media_type', `Content-Encoding ${String(encoding).slice(0, 40)} is not supported: send the body uncompressed`);
  }
  if (!isUtf8(body)) return new DomainError('invalid_json', NOT_UTF8);
  const text = body.toString('utf8');
  return text.charCodeAt(0) === BYTE_ORDER_MARK ? text.slice(1) : text;
}

/**
 * The app-wide `application/json` parser: Fastify's own (prototype-poisoning checks included),
 * with three differences.
 * - An empty body (clients that set the header on every request) is no body, as it is without the
 *   header: routes whose body is optional accept it, the others answer that the body must be a
 *   JSON object.
 * - Bytes that are not UTF-8 are `invalid_json`, never decoded into replacement characters, and a
 *   compressed body is 415 (jsonBodyText).
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
    if (buffer.length === 0 && request.headers['content-encoding'] === undefined) return done(null, undefined);
    const text = jsonBodyText(request, buffer);
    if (text instanceof DomainError) return done(text, undefined);
    parseJson(request, text, (error, value) => done(error && parsesAsJson(text) ? poisoned() : error, value));
  });
}

/**
 * Any other content type: a request that declares a body of no bytes (`curl -X POST -d ''` labels
 * it as a form), or no body at all, has no body, as it has without the header: a route taking none
 * accepts it, the others answer that the body must be a JSON object. A body of any length is
 * Fastify's own 415, refused before it is read. `/hooks/{token}` keeps its own parsers (a trigger
 * body under another content type is 415 whatever its length).
 */
export function installEmptyBodyOfAnyType(fastify: FastifyInstance): void {
  fastify.addContentTypeParser('*', (request, payload, done) => {
    const { 'content-length': length, 'transfer-encoding': encoding } = request.headers;
    const refuse = () => done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(String(request.headers['content-type']).slice(0, 100)), undefined);
    if (length !== undefined) return Number(length) === 0 ? done(null, undefined) : refuse();
    if (encoding === undefined) return done(null, undefined);
    // Chunked: empty only if it ends before its first byte, refused at that byte, unread beyond it.
    let settled = false;
    const settle = (empty: boolean) => {
      if (settled) return;
      settled = true;
      payload.removeAllListeners('data');
      if (empty) done(null, undefined);
      else refuse();
    };
    payload.on('data', (chunk: Buffer) => chunk.length > 0 && settle(false));
    payload.once('end', () => settle(true));
    payload.once('error', () => settle(false));
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
