import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { DocumentBuilder, getSchemaPath, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { OperationObject, ResponseObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import type { ErrorCode } from '../../../../libs/kernel/src';
import { STATUS_CODES } from 'node:http';
import { unwrapAnyJson } from './any-json';
import { FastifyRouteDocsModule } from './fastify-route-docs.module';
import { ErrorBody, errorLine } from './api-errors';
import { statusOf } from '../http/error-status';

const TAGS: Array<[string, string]> = [
  ['event webhooks (v3)', 'Webhooks of the CRM API family: camelCase JSON, header api-key'],
  ['event webhooks (v2)', 'Webhooks of the Email / SMS API family: snake_case JSON, header api-key'],
  ['automations', 'Webhook targets, workflows and their runs (v3), and the secret trigger URLs'],
  ['send status', 'The status of transactional sends, in both families'],
  ['producers', 'Routes of the systems that publish events and report sends (Bearer INTERNAL_TOKEN)'],
  ['admin', 'Operator routes (Bearer ADMIN_TOKEN)'],
  ['operations', 'Health, readiness and metrics'],
];

function documentConfig(): Omit<OpenAPIObject, 'paths'> {
  const builder = new DocumentBuilder()
    .setTitle('Webhook server')
    .setDescription(
      'Event webhooks (v3 camelCase, v2 snake_case), webhook targets and incoming triggers, send status, ' +
        'producer (/internal) and operator (/admin) routes. Every error answer is `{code, message}` (schema Error).',
    )
    .setVersion('0.1.0')
    .addServer('/', 'This server')
    // The tokens are opaque strings: no bearerFormat (DocumentBuilder.addBearerAuth would say JWT).
    .addSecurity('api-key', { type: 'apiKey', in: 'header', name: 'api-key', description: 'An account API key (sk_...), issued by POST /admin/accounts or POST /admin/accounts/{id}/api-keys' })
    .addSecurity('admin', { type: 'http', scheme: 'bearer', description: 'The operator token ADMIN_TOKEN: `Authorization: Bearer <ADMIN_TOKEN>` (an opaque string)' })
    .addSecurity('internal', { type: 'http', scheme: 'bearer', description: 'The producer token INTERNAL_TOKEN: `Authorization: Bearer <INTERNAL_TOKEN>` (an opaque string)' })
    .addSecurity('metrics', { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN, required by GET /metrics only when it is set (an opaque string)' });
  for (const [name, description] of TAGS) builder.addTag(name, description);
  return builder.build();
}

/**
 * The OpenAPI document of the API app, built from the decorators of its controllers and DTOs
 * (nothing is written by hand): served at /docs/json, written to docs/openapi.json by
 * `npm run openapi`. Needs the app created, not listening.
 */
export async function buildOpenApiDocument(app: INestApplication): Promise<OpenAPIObject> {
  const config = documentConfig();
  const document = SwaggerModule.createDocument(app, config, { extraModels: [ErrorBody] });
  const fastifyRoutes = await documentFastifyRoutes(config);
  Object.assign(document.paths, fastifyRoutes.paths);
  document.components = { ...document.components, schemas: { ...fastifyRoutes.components?.schemas, ...document.components?.schemas } };
  for (const item of Object.values(document.paths)) {
    for (const [method, operation] of Object.entries(item) as Array<[string, OperationObject]>) completeOperation(operation, method);
  }
  unwrapAnyJson(document);
  inlineLoneAllOf(document);
  nullInNullableEnums(document);
  return document;
}

/**
 * Routes Fastify serves itself (POST /hooks/{token}) are documented by decorated classes too,
 * read in a Nest app of their own that is never initialised, so nothing is routed twice. It takes
 * no `logger` option: Nest would make that logger the process-wide one, silencing the API app's.
 */
async function documentFastifyRoutes(config: Omit<OpenAPIObject, 'paths'>): Promise<OpenAPIObject> {
  const docsApp = await NestFactory.create(FastifyRouteDocsModule, new FastifyAdapter());
  try {
    return SwaggerModule.createDocument(docsApp, config, { extraModels: [ErrorBody] });
  } finally {
    await docsApp.close();
  }
}

function completeOperation(operation: OperationObject, method: string): void {
  addSharedErrorAnswers(operation, method);
  for (const [status, response] of Object.entries(operation.responses) as Array<[string, ResponseObject]>) {
    if (!response.description) response.description = STATUS_CODES[Number(status)] ?? status;
  }
}

/** What every route can answer, documented once here: 500, and the refusals of a JSON body. */
function addSharedErrorAnswers(operation: OperationObject, method: string): void {
  const codes: ErrorCode[] = ['internal_error'];
  const takesJson = operation.requestBody && 'content' in operation.requestBody && operation.requestBody.content['application/json'];
  // A DELETE documents no body, yet one sent is read (and ignored) like any JSON body: it can fail the same ways.
  if (takesJson || method === 'delete') {
    codes.push('invalid_json', 'payload_too_large', 'unsupported_media_type');
  }
  for (const code of codes) {
    const status = String(statusOf(code));
    const existing = operation.responses[status] as ResponseObject | undefined;
    if (!existing) {
      operation.responses[status] = { description: errorLine(code), content: { 'application/json': { schema: { $ref: getSchemaPath(ErrorBody) } } } };
    } else if (isErrorAnswer(existing) && !existing.description.includes(`\`${code}\``)) {
      existing.description = `${existing.description}\n\n${errorLine(code)}`;
    }
  }
}

/**
 * Swagger wraps a named enum as `allOf: [{$ref}]` so that siblings could sit beside it; with no
 * sibling the wrapper is noise (and a lint warning), so the reference stands alone.
 */
function inlineLoneAllOf(node: unknown): void {
  if (typeof node !== 'object' || node === null) return;
  const record = node as Record<string, unknown>;
  for (const child of Object.values(record)) inlineLoneAllOf(child);
  const allOf = record.allOf;
  if (Array.isArray(allOf) && allOf.length === 1 && Object.keys(record).length === 1) {
    delete record.allOf;
    Object.assign(record, allOf[0]);
  }
}

/**
 * OpenAPI 3.0: `nullable: true` does not widen an `enum`, so a nullable enum must list null itself,
 * or a strict validator (Ajv) refuses every null the server sends (an attempt's `error` whenever an
 * answer arrived, an enabled webhook's `disabledReason`).
 */
function nullInNullableEnums(node: unknown): void {
  if (typeof node !== 'object' || node === null) return;
  const record = node as Record<string, unknown>;
  for (const child of Object.values(record)) nullInNullableEnums(child);
  if (record.nullable === true && Array.isArray(record.enum) && !record.enum.includes(null)) record.enum = [...record.enum, null];
}

function isErrorAnswer(response: ResponseObject): boolean {
  const schema = response.content?.['application/json']?.schema;
  return schema !== undefined && '$ref' in schema && schema.$ref === getSchemaPath(ErrorBody);
}
