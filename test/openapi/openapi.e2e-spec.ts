import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { serializeOpenApi } from '../../apps/api/src/openapi/write-openapi';
import { eventually } from '../support/eventually';
import { deliveredData } from '../support/profile-suite';
import { startReceiver } from '../support/receiver';
import { startTestApp, TestApp } from '../support/test-app';
import { emptyFeedCursors, eventTypeDescriptions, readMissingWebhook, subscribe, typedClient } from './typed-client';

const run = promisify(execFile);
const ROOT = join(__dirname, '../..');
const COMMITTED_DOCUMENT = join(ROOT, 'docs/openapi.json');
const COMMITTED_TYPES = join(ROOT, 'apps/web/src/api/openapi.d.ts');
const STALE = 'is not current: run `npm run openapi` and commit docs/openapi.json and apps/web/src/api/openapi.d.ts';
const bin = (path: string) => join(ROOT, 'node_modules', path);

type Schema = { $ref?: string; type?: string; items?: Schema };
type Response = { description: string; content?: Record<string, { schema: Schema }> };
type Operation = { operationId?: string; security?: Array<Record<string, string[]>>; requestBody?: { content: Record<string, unknown> }; responses: Record<string, Response> };

const ERROR_REF = '#/components/schemas/Error';
/** The two error answers that are not `{code, message}`, both by the contract's own words. */
const OTHER_ERROR_SHAPES = new Set(['#/components/schemas/SendNotFoundView', '#/components/schemas/ReadinessView']);

/**
 * The OpenAPI document: current with the code, lint-clean under Redocly CLI, complete in the ways
 * client generators need, and usable: openapi-typescript's output type-checks a program that
 * then calls the server (one profile: the document does not depend on it).
 */
describe('OpenAPI document', () => {
  let sut: TestApp;
  let document: { paths: Record<string, Record<string, Operation>>; components: { securitySchemes: Record<string, Record<string, unknown>> } };
  const operations = () => Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ route: `${method.toUpperCase()} ${path}`, operation })));

  beforeAll(async () => {
    sut = await startTestApp('sqlite');
    document = (await sut.http().get('/docs/json').expect(200)).body;
  });
  afterAll(async () => {
    await sut?.close();
  });

  it('is the committed docs/openapi.json, served at /docs/json', () => {
    expect(serializeOpenApi(document) === readFileSync(COMMITTED_DOCUMENT, 'utf8') ? 'current' : `docs/openapi.json ${STALE}`).toBe('current');
  });

  it('names every operation once, in one style', () => {
    const ids = operations().map(({ route, operation }) => operation.operationId ?? `missing on ${route}`);
    expect(ids.filter((id) => !/^(v3|v2|admin|internal|hooks|ops)_[a-z][A-Za-z0-9]*$/.test(id))).toEqual([]);
    expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
    expect(ids).toEqual(expect.arrayContaining(['v3_listEventTypes', 'v2_listEventTypes', 'hooks_triggerWorkflow']));
  });

  it('describes every JSON answer by a named schema, and every error by the Error schema', () => {
    const anonymous: string[] = [];
    const untypedErrors: string[] = [];
    for (const { route, operation } of operations()) {
      for (const [status, response] of Object.entries(operation.responses)) {
        const schema = response.content?.['application/json']?.schema;
        if (!schema) continue;
        const ref = schema.$ref ?? schema.items?.$ref;
        if (!ref) anonymous.push(`${route} ${status}`);
        if (Number(status) >= 400 && ref !== ERROR_REF && !OTHER_ERROR_SHAPES.has(ref ?? '')) untypedErrors.push(`${route} ${status}`);
      }
    }
    expect(anonymous).toEqual([]);
    expect(untypedErrors).toEqual([]);
  });

  it('documents the errors each route can give: 500 everywhere, 401 and 503 behind a credential, 400/413/415 with a JSON body', () => {
    const missing: string[] = [];
    for (const { route, operation } of operations()) {
      const expected = ['500'];
      if (operation.security?.some((requirement) => Object.keys(requirement).length > 0 && !('metrics' in requirement))) expected.push('401', '503');
      if (operation.requestBody?.content['application/json']) expected.push('400', '413', '415');
      for (const status of expected) if (!operation.responses[status]) missing.push(`${route} ${status}`);
      if (!operation.security) missing.push(`${route} security`);
    }
    expect(missing).toEqual([]);
    expect(document.paths['/hooks/{token}'].post.responses).toEqual(expect.objectContaining({ '404': expect.anything(), '429': expect.anything() }));
  });

  it('renames for v2 only the fields of the API: header names and the event envelope stay as sent', () => {
    const schemas = (document.components as unknown as { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> }).schemas;
    const headers = { type: 'object', additionalProperties: { type: 'string' }, nullable: true };
    expect(schemas.DeliveryAttemptV3View.properties.requestHeaders).toEqual(expect.objectContaining(headers));
    expect(schemas.DeliveryAttemptV2View.properties.request_headers).toEqual(schemas.DeliveryAttemptV3View.properties.requestHeaders);
    expect(Object.keys(schemas.EventFeedPageV2View.properties)).toEqual(['events', 'next_cursor']);
    expect(schemas.EventFeedPageV2View.properties.events.items).toEqual({ $ref: '#/components/schemas/EnvelopeView' });
    expect(Object.keys(schemas.EnvelopeView.properties)).toEqual(['id', 'type', 'created', 'apiVersion', 'account', 'data']);
    expect(schemas.WebhookV2View.properties).toHaveProperty('disabled_reason');
  });

  it('says what each credential is, with no token labelled a JWT', () => {
    const schemes = document.components.securitySchemes;
    expect(schemes['api-key']).toEqual(expect.objectContaining({ type: 'apiKey', in: 'header', name: 'api-key' }));
    for (const name of ['admin', 'internal', 'metrics']) expect(schemes[name]).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
    expect(Object.values(schemes).filter((scheme) => 'bearerFormat' in scheme)).toEqual([]);
  });

  it('passes Redocly CLI lint (recommended rules) with no error', async () => {
    const lint = await run(process.execPath, [bin('@redocly/cli/bin/cli.js'), 'lint', 'docs/openapi.json', '--format=summary'], {
      cwd: ROOT,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    }).catch((error: { stdout: string; stderr: string }) => error);
    expect(`${lint.stdout}\n${lint.stderr}`).toMatch(/Your API description is valid/);
  });

  it('generates with openapi-typescript the types the dashboard uses, which type-check a client program', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'openapi-ts-'));
    try {
      await run(process.execPath, [bin('openapi-typescript/bin/cli.js'), 'docs/openapi.json', '-o', join(dir, 'openapi.d.ts')], { cwd: ROOT });
      const fresh = readFileSync(join(dir, 'openapi.d.ts'), 'utf8');
      expect(fresh === readFileSync(COMMITTED_TYPES, 'utf8') ? 'current' : `apps/web/src/api/openapi.d.ts ${STALE}`).toBe('current');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    await run(process.execPath, [bin('typescript/bin/tsc'), '-p', 'test/openapi/tsconfig.json'], { cwd: ROOT });
  });

  it("answers as it documents: real answers validate against their operation's schema under a strict validator (nullable enums included)", async () => {
    // Ajv reads OpenAPI 3.0's `nullable` (null passes `type`, never `enum`); the document's `$ref`s resolve inside it
    const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
    addFormats(ajv);
    ajv.addSchema(structuredClone(document), 'doc');
    const mismatches: string[] = [];
    const check = async (method: 'get' | 'post', template: string, path: string, auth: [string, string], body?: object) => {
      const response = await (method === 'get' ? sut.http().get(path) : sut.http().post(path).send(body ?? {})).set(...auth);
      const schema = document.paths[template]?.[method]?.responses[String(response.status)]?.content?.['application/json']?.schema;
      if (!schema) return mismatches.push(`${method} ${template} ${response.status}: not documented`);
      const validate = ajv.compile({ $ref: `doc${schema.$ref ?? ''}`, ...(schema.$ref ? {} : schema) });
      if (!validate(response.body)) mismatches.push(`${method} ${template} ${response.status}: ${ajv.errorsText(validate.errors)}`);
      return response.body;
    };

    const receiver = await startReceiver((request) => (request.path.startsWith('/fail') ? { status: 500, body: 'no' } : { status: 200 }));
    try {
      const account = await sut.createAccount('Documented');
      const key: [string, string] = ['api-key', account.apiKey];
      const internal: [string, string] = ['authorization', `Bearer ${sut.tokens.internal}`];
      const ok = await check('post', '/v3/Webhook', '/v3/Webhook', key, { url: `${receiver.url}/ok`, events: ['email.delivered'] });
      const failing = await check('post', '/v2/webhooks', '/v2/webhooks', key, { url: `${receiver.url}/fail`, events: ['email.delivered'] });
      const { id: eventId } = await check('post', '/internal/events', '/internal/events', internal, { accountId: account.id, type: 'email.delivered', data: deliveredData() });
      await eventually(() => expect(receiver.requests.map((r) => r.path).sort()).toEqual(['/fail', '/ok']), 15_000);
      await eventually(async () => {
        const { body } = await sut.http().get(`/v3/events/${eventId}/deliveries`).set(...key);
        expect(body.deliveries.map((d: { attempts: unknown[] }) => d.attempts.length)).toEqual([1, 1]);
      }, 15_000);
      await check('post', '/v3/Webhook/{id}/disable', `/v3/Webhook/${failing.id}/disable`, key);
      for (const family of ['v3', 'v2']) {
        const webhooks = family === 'v3' ? '/v3/Webhook' : '/v2/webhooks';
        await check('get', webhooks, webhooks, key);
        for (const id of [ok.id, failing.id]) {
          await check('get', `${webhooks}/{id}`, `${webhooks}/${id}`, key);
          await check('get', `${webhooks}/{id}/deliveries`, `${webhooks}/${id}/deliveries`, key);
          await check('get', `${webhooks}/{id}/stats`, `${webhooks}/${id}/stats`, key);
        }
        await check('get', `/${family}/events`, `/${family}/events`, key);
        await check('get', `/${family}/events/{id}`, `/${family}/events/${eventId}`, key);
        await check('get', `/${family}/events/{id}/deliveries`, `/${family}/events/${eventId}/deliveries`, key);
        await check('get', `${webhooks}/{id}`, `${webhooks}/wh_missing`, key);
      }
      const send = await check('post', '/internal/sends', '/internal/sends', internal, { accountId: account.id, email: 'jane@example.com', channel: 'api_v3' });
      await check('get', '/v3/Send/{id}/Status', `/v3/Send/${send.id}/Status`, key);
      await check('get', '/v2/send/{id}/status.json', `/v2/send/${send.id}/status.json`, key);
      await check('get', '/v3/Send/{id}/Status', '/v3/Send/msg_missing/Status', key);
    } finally {
      await receiver.close();
    }
    expect(mismatches).toEqual([]);
  });

  it('calls the server through the generated client', async () => {
    await sut.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = sut.app.getHttpServer().address() as AddressInfo;
    const account = await sut.createAccount('Typed');
    const client = typedClient(`http://127.0.0.1:${port}`, account.apiKey);

    const { created, v2 } = await subscribe(client, 'https://receiver.example.com/in');
    expect(created).toEqual(expect.objectContaining({ url: 'https://receiver.example.com/in', description: 'typed client', secret: expect.stringMatching(/^whsec_/) }));
    expect(v2).toEqual(expect.objectContaining({ id: created.id, api_version: 'v3', consecutive_failures: 0 }));
    expect(await readMissingWebhook(client)).toEqual({ status: 404, error: { code: 'not_found', message: expect.any(String) } });
    expect(await eventTypeDescriptions(client)).toEqual(expect.arrayContaining([expect.stringMatching(/^email\.delivered: \S/)]));
    expect(await emptyFeedCursors(client)).toEqual({ v3: null, v2: null });
  });
});
