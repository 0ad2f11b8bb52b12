import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { FastifyBaseLogger, FastifyReply, FastifyRequest, LogController } from 'fastify';
import type { Socket } from 'node:net';
import { SwaggerModule } from '@nestjs/swagger';
import type { Bindings, ChildLoggerOptions, Logger } from 'pino';
import type { AppConfig } from '../../../config/load-config';
import { LazyChildLogger } from '../../../libs/adapters/logging/lazy-child-logger';
import { PinoNestLogger, redactUrl } from '../../../libs/adapters/logging/logger';
import { Metrics } from '../../../libs/adapters/metrics/metrics';
import { DomainError, jsonBodyProblem, requestIdFrom } from '../../../libs/kernel/src';
import { ApiModule } from './api.module';
import { ContractExceptionFilter } from './http/contract-exception.filter';
import { ContractValidationPipe } from './http/contract-validation.pipe';
import { OperatorTokens } from './http/operator-tokens';
import { buildOpenApiDocument } from './openapi/openapi-document';
import { sendContractError } from './http/send-contract-error';
import { drainOnClose } from './http/drain-on-close';
import { answerOnSocketAndClose, closeIfInAnsweredBody, noteAnsweredBeforeItsBody, requestIdInRefusedBytes } from './http/raw-answer';
import { refuseConnect } from './http/refuse-connect';
import { installEmptyBodyOfAnyType, installJsonBodyParser } from './http/json-body';
import { checkCredentialsFirst, CredentialCheck } from './http/guards';

export const JSON_BODY_LIMIT_BYTES = 1024 * 1024;
const MAX_PATH_PARAMETER_LENGTH = 16 * 1024;

export interface ApiAppOptions {
  config: AppConfig;
  tokens: OperatorTokens;
  logger: Logger;
}

/** Builds the API application (used by main.ts and by the end-to-end tests alike). */
export async function createApiApp({ config, tokens, logger }: ApiAppOptions): Promise<NestFastifyApplication> {
  const adapter = new ContractFastifyAdapter({
    loggerInstance: logger,
    bodyLimit: JSON_BODY_LIMIT_BYTES,
    // Access lines are written by the onResponse hook below (with the /hooks token redacted).
    // x-request-id (CONTRACT 9.4): the caller's own when well-formed, else a new one (genReqId);
    // every line written through request.log carries it as the pino field `requestId`.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'requestId' }),
    requestIdHeader: false,
    genReqId: (request: { headers: Record<string, string | string[] | undefined> }) => requestIdFrom(request.headers['x-request-id']),
    // request.log: a child carrying the request id, made only when a line is written through it.
    childLoggerFactory: (parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions) => new LazyChildLogger(parent as Logger, bindings, options) as unknown as FastifyBaseLogger,
    // A path parameter may be as long as a request line allows (Node's 16 KB of headers), so every
    // id reaches its route: a send-status lookup answers {"id","status":"not_found"} for any id.
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: MAX_PATH_PARAMETER_LENGTH },
    // The router's own refusals (an undecodable %-escape, a parameter over that length) and
    // requests Node's parser rejects (bad header bytes, oversized headers) answer in the contract's
    // {code, message} shape too, instead of Fastify's {error, statusCode} defaults.
    frameworkErrors: (error: unknown, request: FastifyRequest, reply: FastifyReply) => sendContractError(error, request, reply),
    clientErrorHandler: contractClientError,
    // drainOnClose answers requests that arrive while the app shuts down, in the contract's shape.
    return503OnClosing: false,
  });
  const app = await NestFactory.create<NestFastifyApplication>(ApiModule.forRoot({ config, tokens }), adapter, {
    logger: new PinoNestLogger(logger),
    bufferLogs: false,
    // A failure while building (storage down, SECRETS_KEY refusing) reaches main's one-line report.
    abortOnError: false,
  });
  const fastify = app.getHttpAdapter().getInstance();
  // The registry is the infrastructure module's (shared with the dispatcher's delivery metrics).
  const metrics = app.get(Metrics);

  drainOnClose(fastify);
  checkCredentialsFirst(fastify, app.get(CredentialCheck));
  // The hooks run on every request: plain callbacks, no promise each.
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    done();
  });
  // Every parsed JSON body, also one a route ignores, is at most MAX_JSON_DEPTH deep (CONTRACT §9.6)
  // and holds only finite numbers; /hooks keeps its body as text and checks it itself.
  fastify.addHook('preHandler', (request, _reply, done) => {
    const problem = typeof request.body === 'object' && request.body !== null ? jsonBodyProblem(request.body) : null;
    done(problem === null ? undefined : new DomainError('invalid_parameter', problem));
  });
  // The access line holds no secret (its url goes through redactUrl), so it skips the logger's
  // redaction of wildcard paths, which cost as much as writing the rest of the line.
  const accessLog = logger.child({}, { redact: [] });
  refuseConnect(fastify.server, accessLog);
  fastify.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const seconds = reply.elapsedTime / 1000;
    metrics.httpRequests.inc({ method: request.method, route, status: String(reply.statusCode) });
    metrics.httpDuration.observe({ method: request.method, route }, seconds);
    accessLog.info(
      { requestId: request.id, method: request.method, url: redactUrl(request.url), status: reply.statusCode, durationMs: Math.round(reply.elapsedTime) },
      'request completed',
    );
    if (!request.raw.complete) noteAnsweredBeforeItsBody(request.raw);
    done();
  });

  app.useGlobalFilters(new ContractExceptionFilter());
  app.useGlobalPipes(new ContractValidationPipe());
  await setUpDocs(app);
  await app.init();
  // JSON routes take JSON only (415 otherwise): Fastify's text/plain parser and the form parser Nest
  // adds in init() would hand handlers strings and query-string objects.
  fastify.removeContentTypeParser(['text/plain', 'application/x-www-form-urlencoded']);
  installJsonBodyParser(fastify);
  installEmptyBodyOfAnyType(fastify);
  await fastify.ready();
  return app;
}

/**
 * Nest's Fastify error handler turns Fastify's own errors (body parser: 415, 413, invalid JSON)
 * into plain HttpExceptions and loses their codes; this one maps them exactly, the same way
 * the global filter maps everything thrown by handlers.
 */
class ContractFastifyAdapter extends FastifyAdapter {
  override setErrorHandler(_nestHandler: Parameters<FastifyAdapter['setErrorHandler']>[0]) {
    return super.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => sendContractError(error, request, reply));
  }
}

/** A request Node's HTTP parser refused before Fastify saw it: answered in the contract's shape, then closed. */
function contractClientError(error: Error & { code?: string; rawPacket?: unknown; bytesParsed?: unknown }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (closeIfInAnsweredBody(socket)) return;
  // Bytes after a request that closes the connection (HTTP/1.0, `Connection: close`): that request
  // is still answered, then Node ends the connection; the rest is ignored (RFC 9112 §9.6).
  if (error.code === 'HPE_CLOSED_CONNECTION') return;
  const [status, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'the request headers are larger than the server accepts']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'the request took too long to arrive']
        : [400, 'the request is not valid HTTP'];
  answerOnSocketAndClose(socket, status, { code: 'invalid_parameter', message }, requestIdFrom(requestIdInRefusedBytes(error)));
}

async function setUpDocs(app: NestFastifyApplication): Promise<void> {
  const document = await buildOpenApiDocument(app);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs/json', yamlDocumentUrl: 'docs/yaml', raw: ['json', 'yaml'] });
}
