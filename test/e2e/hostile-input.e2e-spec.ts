import fc from 'fast-check';
import { connect } from 'node:net';
import { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { PROFILES, profileAvailable, startTestApp, TestApp } from '../support/test-app';

/**
 * Hostile input at every route (the OpenAPI document's paths plus POST /hooks/{token}), with
 * valid credentials (so guards pass and handlers see the input) and without: wrong types, huge
 * and deep JSON, invalid UTF-8, null bytes, injection strings, prototype keys, traversal and
 * overlong ids, wrong methods, absent and duplicated headers. Every answer must be below 500
 * with the contract's error shape, no secret may appear in any answer but the one creating it
 * nor in any log line, the process stays up and its heap returns near its baseline.
 *
 * Runs on every profile (TEST_PROFILES). Requests go over raw sockets so that headers and paths reach the server exactly as written.
 */

interface RawResponse {
  status: number;
  headers: Record<string, string[]>;
  body: string;
}

interface RawRequest {
  method: string;
  path: string;
  /** Header lines as pairs; a name may repeat (duplicated headers), values are sent as is. */
  headers?: Array<[string, string]>;
  body?: string | Buffer;
  /** Omit the Content-Length header the helper would add (bodies then go unframed). */
  noContentLength?: boolean;
  /** What the case is, for failure messages. */
  note?: string;
}

const REQUEST_TIMEOUT_MS = 15_000;

function rawRequest(port: number, request: RawRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const body = request.body === undefined ? Buffer.alloc(0) : Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body, 'utf8');
    const lines = [`${request.method} ${request.path} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close'];
    for (const [name, value] of request.headers ?? []) lines.push(`${name}: ${value}`);
    if (!request.noContentLength && (body.length > 0 || ['POST', 'PUT', 'PATCH'].includes(request.method))) lines.push(`Content-Length: ${body.length}`);
    const head = Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'latin1');
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms: ${request.method} ${request.path.slice(0, 200)}`));
    }, REQUEST_TIMEOUT_MS);
    socket.on('connect', () => {
      socket.write(head);
      // The server may answer (413, 4xx) and close before reading a big body: ignore EPIPE then.
      if (body.length > 0) socket.write(body);
    });
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const raw = Buffer.concat(chunks);
      const split = raw.indexOf('\r\n\r\n');
      if (split < 0) return reject(new Error(`no HTTP answer (${raw.length} bytes) to ${request.method} ${request.path.slice(0, 200)}`));
      const [statusLine, ...headerLines] = raw.subarray(0, split).toString('latin1').split('\r\n');
      const headers: Record<string, string[]> = {};
      for (const line of headerLines) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).trim().toLowerCase();
        (headers[name] ??= []).push(line.slice(colon + 1).trim());
      }
      let rest: Buffer = raw.subarray(split + 4);
      if (headers['transfer-encoding']?.some((v) => /chunked/i.test(v))) rest = dechunk(rest);
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.toString('utf8') });
    });
  });
}

function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let offset = 0;
  while (offset < data.length) {
    const lineEnd = data.indexOf('\r\n', offset);
    if (lineEnd < 0) break;
    const size = parseInt(data.subarray(offset, lineEnd).toString('latin1'), 16);
    if (!size) break;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** global.gc when jest runs with --expose-gc, else the same function obtained through V8's flags. */
function gcFunction(): (() => void) | null {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (existing) return existing;
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  } catch {
    return null;
  }
}

const SAFE_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'];
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
const SNAKE_CODE = /^[a-z][a-z0-9_]*$/;

const HOSTILE_IDS = [
  '../../etc/passwd',
  '..%2F..%2Fetc%2Fpasswd',
  '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
  '%2e%2e',
  '%00',
  'wh_%00abc',
  encodeURIComponent("' OR 1=1 --"),
  encodeURIComponent("1' UNION SELECT secret FROM webhooks --"),
  encodeURIComponent("{{constructor.constructor('x')()}}"),
  '__proto__',
  'constructor',
  'prototype',
  '%ff%fe%c3',
  '%',
  '-1',
  '0',
  '1e309',
  '99999999999999999999999999',
  'NaN',
  'x'.repeat(512),
  'x'.repeat(513),
  'evt_' + 'a'.repeat(20_000),
];

const INJECTIONS = ["' OR 1=1 --", "{{constructor.constructor('x')()}}", '${process.exit(1)}', '<script>alert(1)</script>', '\u0000', 'a\u0000b', '__proto__', '\ud800'];

const FIELD_NAMES = [
  'url', 'events', 'description', 'name', 'accountId', 'type', 'data', 'id', 'created', 'email', 'channel', 'scheduledAt', 'createdAt', 'status',
  'diagCode', 'bounceType', 'at', 'headers', 'signingKey', 'generateSigningKey', 'trigger', 'steps', 'targetId', 'body', 'seconds', 'since',
  'events_', 'api_version', 'limit', 'cursor',
];

const deepArray = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const deepObject = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

/** Hostile request bodies, as the raw bytes sent with `Content-Type: application/json`. */
function hostileBodies(): Array<[string, string | Buffer]> {
  const everyField = (value: unknown) => JSON.stringify(Object.fromEntries(FIELD_NAMES.map((name) => [name, value])));
  const bodies: Array<[string, string | Buffer]> = [
    ['null', 'null'],
    ['array', '[]'],
    ['string', '"text"'],
    ['number', '12345'],
    ['boolean', 'true'],
    ['empty object', '{}'],
    ['empty body', ''],
    ['truncated JSON', '{"name":'],
    ['trailing garbage', '{"name":"x"} {'],
    ['fields as numbers', everyField(1e308)],
    ['fields as negative', everyField(-1)],
    ['fields as strings', everyField('x')],
    ['fields as arrays', everyField([[], {}, null])],
    ['fields as objects', everyField({ nested: { deeper: true } })],
    ['fields as null', everyField(null)],
    ...INJECTIONS.map((text, i): [string, string] => [`injection ${i}`, everyField(text)]),
    ['events with injection', JSON.stringify({ url: 'http://127.0.0.1:9/x', events: INJECTIONS, name: 'n', accountId: 1, type: "' OR 1=1 --", data: {} })],
    ['__proto__ keys', '{"__proto__":{"polluted":"yes","isAdmin":true},"constructor":{"prototype":{"polluted":"yes"}},"name":"x","url":"http://127.0.0.1:9/x","events":["email.delivered"]}'],
    ['__proto__ deep', '{"data":{"__proto__":{"polluted":"yes"}},"headers":{"__proto__":{"polluted":"yes"}},"accountId":1,"type":"email.delivered"}'],
    ['deep arrays (10,000)', deepArray(10_000)],
    ['deep objects (10,000)', deepObject(10_000)],
    ['deep data field', `{"accountId":1,"type":"email.delivered","data":${deepArray(10_000)},"name":${deepObject(5_000)},"events":${deepArray(5_000)}}`],
    ['deep steps body', `{"name":"w","trigger":{"type":"incoming_webhook"},"steps":[{"type":"send_webhook","targetId":"tgt_x","body":${deepObject(10_000)}}]}`],
    ['many keys', JSON.stringify(Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i])))],
    ['long array of events', JSON.stringify({ events: Array.from({ length: 100_000 }, () => 'email.delivered'), url: 'http://127.0.0.1:9/x' })],
    ['1 MB string within the limit', JSON.stringify({ name: 'x'.repeat(1024 * 1024 - 64), url: 'http://127.0.0.1:9/x' })],
    ['1 MB string above the limit', JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 16) })],
    ['invalid UTF-8 in a string', Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xa0, 0xa1]), Buffer.from('","url":"http://127.0.0.1:9/x","events":["email.delivered"]}')])],
    ['invalid UTF-8 as a key', Buffer.concat([Buffer.from('{"'), Buffer.from([0xc0, 0xaf, 0xed, 0xa0, 0x80]), Buffer.from('":1}')])],
    ['lone surrogate escapes', '{"name":"\\ud800\\udbff","description":"\\udfff","url":"http://127.0.0.1:9/\\ud800"}'],
    ['null bytes', JSON.stringify({ name: 'a\u0000b', url: 'http://127.0.0.1:9/\u0000', events: ['email.delivered\u0000'], email: 'a\u0000@x.com', type: 'email.\u0000delivered' })],
    ['huge numbers', '{"accountId":1e400,"seconds":-1e400,"limit":123456789012345678901234567890,"id":1.5}'],
  ];
  return bodies;
}

/** What the guards want on each path family. */
function credentialFor(path: string, secrets: { apiKey: string; admin: string; internal: string }): Array<[string, string]> {
  if (path.startsWith('/v3/') || path.startsWith('/v2/')) return [['api-key', secrets.apiKey]];
  if (path.startsWith('/admin/')) return [['authorization', `Bearer ${secrets.admin}`]];
  if (path.startsWith('/internal/')) return [['authorization', `Bearer ${secrets.internal}`]];
  return [];
}

describe.each(PROFILES)('hostile input (%s)', (profile) => {
  let sut: TestApp;
  let skip = false;
  let port: number;
  const gc = gcFunction();
  /** Every secret the suite created or configured, with the response that revealed it. */
  const secrets = new Set<string>();
  const failures: string[] = [];
  let requests = 0;
  let ids: { account: number; webhook: string; target: string; workflow: string; send: string; token: string; keyId: number };
  let apiKey: string;
  let baseline = 0;

  const heap = () => {
    gc?.();
    gc?.();
    return gc ? process.memoryUsage().heapUsed : process.memoryUsage().rss;
  };

  /** Adds the secrets a creating response reveals (api keys, webhook secrets, signing keys, trigger tokens). */
  const harvest = (value: unknown): void => {
    if (!value || typeof value !== 'object') return;
    for (const [key, inner] of Object.entries(value)) {
      if (typeof inner === 'string' && ['apiKey', 'api_key', 'secret', 'signingKey', 'signing_key'].includes(key) && inner.length >= 8) secrets.add(inner);
      if (typeof inner === 'string' && (key === 'triggerUrl' || key === 'trigger_url')) {
        secrets.add(inner);
        secrets.add(inner.split('/').pop()!);
      }
      harvest(inner);
    }
  };

  /** Sends, checks the answer, and records (rather than throws) what is wrong, with the request. */
  const send = async (request: RawRequest): Promise<RawResponse> => {
    requests++;
    const label = `${request.method} ${request.path.slice(0, 120)}${request.path.length > 120 ? '…' : ''}${request.note ? ` [${request.note}]` : ''}`;
    const response = await rawRequest(port, request);
    if (response.status >= 500 || !(response.status >= 100)) failures.push(`${label} -> ${response.status} ${response.body.slice(0, 300)}`);
    for (const secret of secrets) {
      if (response.body.includes(secret)) failures.push(`${label} -> answer carries a secret (${secret.slice(0, 6)}…)`);
    }
    if (response.status >= 400 && request.method !== 'HEAD') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(response.body);
      } catch {
        parsed = undefined;
      }
      const body = parsed as { code?: unknown; message?: unknown; status?: unknown; id?: unknown } | undefined;
      const contractError = !!body && typeof body.code === 'string' && SNAKE_CODE.test(body.code) && typeof body.message === 'string';
      // The send-status lookups' documented 404: {"id","status":"not_found"}.
      const sendStatus404 = response.status === 404 && !!body && body.status === 'not_found' && 'id' in body && /\/(Send|send)\//.test(request.path);
      if (!contractError && !sendStatus404) failures.push(`${label} -> ${response.status} without the {code, message} shape: ${response.body.slice(0, 200)}`);
      // A message may repeat what the caller sent, but stays one short printable line.
      if (contractError && (String(body!.message).length > 500 || /[\u0000-\u001f]/.test(String(body!.message)))) {
        failures.push(`${label} -> ${response.status} with a message of ${String(body!.message).length} characters: ${String(body!.message).slice(0, 120)}…`);
      }
    }
    if (response.status < 300) {
      try {
        harvest(JSON.parse(response.body));
      } catch {
        // not JSON (metrics, docs): nothing to harvest
      }
    }
    return response;
  };

  const json = (method: string, path: string, headers: Array<[string, string]>, body?: unknown) =>
    send({ method, path, headers: body === undefined ? headers : [['content-type', 'application/json'], ...headers], body: body === undefined ? undefined : JSON.stringify(body) });

  /** [method, path template] of every route: the OpenAPI document's, plus the hand-documented /hooks/{token}. */
  let routes: Array<[string, string]> = [];

  beforeAll(async () => {
    skip = !(await profileAvailable(profile));
    if (skip) return;
    sut = await startTestApp(profile, { env: { DELIVERY_RETRY_SCHEDULE: '1h', DELIVERY_TIMEOUT_MS: '500', TARGET_RETRY_SCHEDULE: '1h' } });
    await sut.app.listen(0, '127.0.0.1');
    port = (sut.app.getHttpServer().address() as AddressInfo).port;
    secrets.add(sut.tokens.admin);
    secrets.add(sut.tokens.internal);
    const admin: [string, string] = ['authorization', `Bearer ${sut.tokens.admin}`];
    const internal: [string, string] = ['authorization', `Bearer ${sut.tokens.internal}`];

    const ok = async (answer: Promise<RawResponse>) => {
      const response = await answer;
      if (response.status >= 300) throw new Error(`set-up failed: ${response.status} ${response.body}`);
      return JSON.parse(response.body || '{}');
    };
    const account = await ok(json('POST', '/admin/accounts', [admin], { name: 'Acme' }));
    apiKey = account.apiKey;
    const key = await ok(json('POST', `/admin/accounts/${account.id}/api-keys`, [admin]));
    const auth: [string, string] = ['api-key', apiKey];
    const webhook = await ok(json('POST', '/v3/Webhook', [auth], { url: 'http://127.0.0.1:9/in', events: ['email.delivered'] }));
    await ok(json('POST', `/v3/Webhook/${webhook.id}/rotate-secret`, [auth]));
    const target = await ok(json('POST', '/v3/automations/webhook-targets', [auth], { name: 'T', url: 'http://127.0.0.1:9/t', generateSigningKey: true }));
    const workflow = await ok(
      json('POST', '/v3/automations/workflows', [auth], { name: 'W', trigger: { type: 'incoming_webhook' }, steps: [{ type: 'send_webhook', targetId: target.id, body: { x: '{{ trigger.body.x }}' } }] }),
    );
    const activated = await ok(json('POST', `/v3/automations/workflows/${workflow.id}/activate`, [auth]));
    const sendRecord = await ok(json('POST', '/internal/sends', [internal], { accountId: account.id, email: 'jane@example.com', channel: 'api_v3' }));
    await ok(json('POST', '/internal/events', [internal], { accountId: account.id, type: 'email.delivered', data: { email: 'jane@example.com', idSending: 1, sendingType: 1, diagCode: '250', deliveredAt: '2025-11-22T02:00:00.000Z' } }));
    ids = { account: account.id, webhook: webhook.id, target: target.id, workflow: workflow.id, send: sendRecord.id, token: activated.triggerUrl.split('/').pop(), keyId: key.id };
    expect(secrets.size).toBeGreaterThanOrEqual(8);
    expect(failures).toEqual([]);

    const docs = JSON.parse((await send({ method: 'GET', path: '/docs/json' })).body) as { paths: Record<string, Record<string, unknown>> };
    for (const [path, operations] of Object.entries(docs.paths)) {
      for (const method of Object.keys(operations)) if (SAFE_METHODS.includes(method.toUpperCase())) routes.push([method.toUpperCase(), path]);
    }
    if (!routes.some(([m, p]) => m === 'POST' && p === '/hooks/{token}')) routes.push(['POST', '/hooks/{token}']);
    routes = routes.filter(([, path]) => !path.startsWith('/docs'));
    expect(routes.length).toBeGreaterThan(30);
    baseline = heap();
  }, 60_000);

  afterAll(async () => {
    await sut?.close();
  });

  /** The real id for each path parameter (so the handler runs), by path family. */
  const realParam = (path: string, name: string, method?: string): string | null => {
    if (name === 'token') return ids.token;
    // Revoking the suite's own key, or deleting its account or webhook, would end the run.
    if (name === 'keyId' || method === 'DELETE') return null;
    if (name === 'deliveryId') return null;
    if (path.startsWith('/admin/accounts/')) return String(ids.account);
    if (/\/(Send|send|sends)\//.test(path)) return ids.send;
    if (path.includes('webhook-targets')) return ids.target;
    if (path.includes('workflows')) return ids.workflow;
    if (/\/(Webhook|webhooks)\//.test(path)) return ids.webhook;
    return null;
  };
  const fill = (path: string, value: (name: string) => string) => path.replace(/\{(\w+)\}/g, (_, name: string) => value(name));
  const credentials = (path: string) => credentialFor(path, { apiKey, admin: sut.tokens.admin, internal: sut.tokens.internal });

  beforeEach(() => {
    failures.length = 0;
  });

  it('answers hostile path ids below 500 with the contract shape, with and without credentials', async () => {
    if (skip) return;
    for (const [method, template] of routes.filter(([, p]) => p.includes('{'))) {
      for (const id of HOSTILE_IDS) {
        const path = fill(template, () => id);
        const body = BODY_METHODS.has(method) ? '{}' : undefined;
        await send({ method, path, headers: [['content-type', 'application/json'], ...credentials(template)], body });
        await send({ method, path, headers: [['content-type', 'application/json']], body });
      }
    }
    expect(failures).toEqual([]);
  }, 60_000);

  /** Every hostile body at every body route: with the real ids and credentials, with a hostile id, without credentials. */
  const bodyRound = async () => {
    const bodies = hostileBodies();
    for (const [method, template] of routes.filter(([m]) => BODY_METHODS.has(m))) {
      const real = fill(template, (name) => realParam(template, name, method) ?? 'zz_missing');
      const hostile = fill(template, () => '..%2F%00');
      for (const [note, body] of bodies) {
        await send({ method, path: real, headers: [['content-type', 'application/json'], ...credentials(template)], body, note });
      }
      for (const [note, body] of bodies.slice(0, 12)) {
        await send({ method, path: hostile, headers: [['content-type', 'application/json'], ...credentials(template)], body, note });
        await send({ method, path: real, headers: [['content-type', 'application/json']], body, note });
      }
    }
  };

  it('answers hostile bodies at every body route below 500, with the real ids and with hostile ones', async () => {
    if (skip) return;
    await bodyRound();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(failures).toEqual([]);
  }, 60_000);

  it('survives random JSON bodies and query strings at every route (property-based)', async () => {
    if (skip) return;
    const fieldValue = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constantFrom(...INJECTIONS), fc.string({ unit: 'binary', maxLength: 40 }));
    const bodyArb = fc.oneof(fc.jsonValue({ maxDepth: 4 }), fc.dictionary(fc.constantFrom(...FIELD_NAMES, '__proto__', 'constructor'), fieldValue, { maxKeys: 8 }));
    const queryArb = fc.dictionary(fc.constantFrom('limit', 'cursor', 'status', 'since', 'x', '__proto__'), fc.oneof(fc.string({ unit: 'binary', maxLength: 30 }), fc.constantFrom(...INJECTIONS, '-1', '1e309', '')), { maxKeys: 3 });
    for (const [method, template] of routes) {
      const path = fill(template, (name) => realParam(template, name, method) ?? 'zz_missing');
      await fc.assert(
        fc.asyncProperty(bodyArb, queryArb, fc.boolean(), async (body, query, withCredentials) => {
          const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
          const before = failures.length;
          await send({
            method,
            path: qs ? `${path}?${qs}` : path,
            headers: [['content-type', 'application/json'], ...(withCredentials ? credentials(template) : [])],
            body: BODY_METHODS.has(method) ? JSON.stringify(body) : undefined,
          });
          return failures.length === before;
        }),
        { numRuns: 12, seed: 20261122 },
      );
    }
    expect(failures).toEqual([]);
  }, 60_000);

  it('answers wrong methods, wrong and duplicated headers, null bytes and overlong headers below 500', async () => {
    if (skip) return;
    const paths = [...new Set(routes.map(([, template]) => template))];
    for (const template of paths) {
      const path = fill(template, (name) => realParam(template, name) ?? 'zz_missing');
      const allowed = new Set(routes.filter(([, t]) => t === template).map(([m]) => m));
      for (const method of ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'PROPFIND']) {
        if (allowed.has(method) && method === 'DELETE') continue;
        if (!allowed.has(method)) await send({ method, path, headers: credentials(template), body: method === 'GET' ? undefined : '{}' });
      }
      const method = [...allowed].find((m) => m !== 'DELETE') ?? 'GET';
      const body = BODY_METHODS.has(method) ? '{"name":"x"}' : undefined;
      const cred = credentials(template);
      const headerSets: Array<Array<[string, string]>> = [
        [], // absent content type and credential
        [['content-type', 'application/json'], ['content-type', 'text/plain']],
        [['content-type', 'text/plain'], ...cred],
        [['content-type', 'application/x-www-form-urlencoded'], ...cred],
        [['content-type', 'application/json; charset=latin1'], ...cred],
        [['content-type', 'application/json'], ...cred, ...cred],
        [['content-type', 'application/json'], ['api-key', apiKey], ['api-key', 'sk_wrong'], ['authorization', `Bearer ${sut.tokens.admin}`], ['authorization', 'Bearer nope']],
        [['content-type', 'application/json'], ['api-key', 'sk_wrong'], ['api-key', apiKey]],
        [['content-type', 'application/json'], ['api-key', `${apiKey}\u0000`], ['authorization', `Bearer ${sut.tokens.internal}\u0000x`]],
        [['content-type', 'application/json\u0000'], ['api-key', "' OR 1=1 --"], ['authorization', 'Bearer ' + "{{constructor.constructor('x')()}}"]],
        [['content-type', 'application/json'], ['api-key', 'x'.repeat(8_000)], ['x-request-id', '../../etc/passwd\u0000']],
        [['content-type', 'application/json'], ['authorization', sut.tokens.admin], ['authorization', `Basic ${sut.tokens.internal}`]],
        [['content-type', 'application/json'], ['x-huge', 'y'.repeat(40_000)], ...cred],
      ];
      for (const headers of headerSets) await send({ method, path, headers, body });
    }
    expect(failures).toEqual([]);
  }, 60_000);

  it('refuses a JSON body nested deeper than 64 levels on every route, also on routes that ignore their body', async () => {
    if (skip) return;
    const deep = deepArray(65);
    const routes: Array<[method: 'post' | 'put' | 'delete', path: string, auth: [string, string]]> = [
      ['post', `/v3/Webhook/${ids.webhook}/enable`, ['api-key', apiKey]],
      ['post', `/v3/Webhook/${ids.webhook}/rotate-secret`, ['api-key', apiKey]],
      ['post', `/v2/webhooks/${ids.webhook}/disable`, ['api-key', apiKey]],
      ['put', `/v3/Webhook/${ids.webhook}`, ['api-key', apiKey]],
      ['delete', `/v3/automations/targets/${ids.target}`, ['api-key', apiKey]],
      ['post', '/admin/maintenance/purge', ['authorization', `Bearer ${sut.tokens.admin}`]],
      ['post', '/internal/events', ['authorization', `Bearer ${sut.tokens.internal}`]],
    ];
    for (const [method, path, [header, value]] of routes) {
      const response = await sut.http()[method](path).set(header, value).set('content-type', 'application/json').send(deep);
      expect({ path, status: response.status, code: response.body.code }).toEqual({ path, status: 400, code: 'invalid_parameter' });
    }
    // 64 levels pass the depth check where a body is ignored (a DELETE's); the route then answers for itself
    const unknown = await sut.http().delete('/v3/Webhook/wh_01JD0000000000000000000000').set('api-key', apiKey).set('content-type', 'application/json').send(deepArray(64));
    expect([unknown.status, unknown.body.code]).toEqual([404, 'not_found']);
  });

  it('takes an empty body under any content type as no body, however it is framed; one byte of it is 415', async () => {
    if (skip) return;
    const createKey = (headers: Array<[string, string]>, body: string, noContentLength = true) =>
      rawRequest(port, { method: 'POST', path: `/admin/accounts/${ids.account}/api-keys`, headers: [['authorization', `Bearer ${sut.tokens.admin}`], ...headers], body, noContentLength });
    for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
      expect((await createKey([['content-type', type], ['transfer-encoding', 'chunked']], '0\r\n\r\n')).status).toBe(201);
      expect((await createKey([['content-type', type], ['content-length', '00']], '')).status).toBe(201);
      const chunked = await createKey([['content-type', type], ['transfer-encoding', 'chunked']], '1\r\nx\r\n0\r\n\r\n');
      expect([chunked.status, JSON.parse(chunked.body).code]).toEqual([415, 'unsupported_media_type']);
    }
  });

  it('answers a dashboard path that climbs out of its files, or names a dotfile, 404 not_found (no credential would open it)', async () => {
    if (skip) return;
    for (const path of ['/app/assets/../../package.json', '/app/assets/..%2f..%2fpackage.json', '/app/assets/%2e%2e/%2e%2e/v3/Webhook', '/app/assets/.env']) {
      const response = await rawRequest(port, { method: 'GET', path });
      expect({ path, status: response.status, code: JSON.parse(response.body).code }).toEqual({ path, status: 404, code: 'not_found' });
    }
  });

  it('says why an id that cannot be decoded names nothing, instead of calling the route unknown', async () => {
    if (skip) return;
    const message = 'the path holds an invalid percent-encoding: it names nothing';
    for (const path of ['/v3/Send/%ff/Status', '/v3/events/%zz']) {
      const response = await rawRequest(port, { method: 'GET', path, headers: [['api-key', apiKey]] });
      expect({ path, status: response.status, body: JSON.parse(response.body) }).toEqual({ path, status: 404, body: { code: 'not_found', message } });
    }
  });

  it('answers CONNECT (never handed to a route by Node) in the contract shape instead of closing the connection', async () => {
    if (skip) return;
    for (const path of ['example.com:443', '127.0.0.1:3306', '/health']) {
      const response = await rawRequest(port, { method: 'CONNECT', path, headers: [['api-key', apiKey], ['x-request-id', 'my-connect-id']] });
      expect([response.status, JSON.parse(response.body).code, response.headers['x-request-id']]).toEqual([404, 'not_found', ['my-connect-id']]);
    }
    expect((await rawRequest(port, { method: 'GET', path: '/health' })).status).toBe(200);

    // Pipelined after requests still being answered: their answers first, in order, then the 404.
    const event = JSON.stringify({ accountId: 999_999_999, type: 'email.delivered', data: { email: 'a@example.com', idSending: 1, sendingType: 1, diagCode: '250', deliveredAt: '2025-11-22T02:00:00.000Z' } });
    const exchange = (payload: string) =>
      new Promise<string>((resolve) => {
        const socket = connect(port, '127.0.0.1', () => socket.write(payload));
        let received = '';
        socket.on('data', (chunk) => (received += chunk.toString('latin1')));
        socket.on('close', () => resolve(received));
        socket.on('error', () => undefined);
      });
    const statuses = (raw: string) => [...raw.matchAll(/HTTP\/1\.[01] (\d{3}) /g)].map((m) => m[1]);
    const raw = await exchange(
      [
        `POST /internal/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${sut.tokens.internal}\r\nContent-Type: application/json\r\nContent-Length: ${event.length}\r\n\r\n${event}`,
        // answers of about 150 KB each: more than a socket takes at once
        ...Array.from({ length: 3 }, () => 'GET /docs/json HTTP/1.1\r\nHost: x\r\n\r\n'),
        ...Array.from({ length: 3 }, () => 'GET /health HTTP/1.1\r\nHost: x\r\n\r\n'),
        'CONNECT a:1 HTTP/1.1\r\nHost: a:1\r\nX-Request-Id: pipelined-connect\r\n\r\n',
      ].join(''),
    );
    // the event is refused (its data, or its unknown account), after a database lookup
    expect(statuses(raw)).toEqual([expect.stringMatching(/^40[04]$/), '200', '200', '200', '200', '200', '200', '404']);
    expect(raw.slice(raw.lastIndexOf('HTTP/1.1 404'))).toMatch(/X-Request-Id: pipelined-connect/i);
    // a request Node's parser refuses is answered with the caller's request id, when it could be read
    const refused = await exchange('GET /health HTTP/1.1\r\nHost: x\r\n\r\nFOO /health HTTP/1.1\r\nHost: x\r\nX-Request-Id: refused-1\r\n\r\n');
    expect(statuses(refused)).toEqual(['200', '400']);
    expect(refused.slice(refused.lastIndexOf('HTTP/1.1 400'))).toMatch(/X-Request-Id: refused-1\r\n/i);
    const overflow = await exchange(`GET /health HTTP/1.1\r\nHost: x\r\nX-Request-Id: too-big-1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(statuses(overflow)).toEqual(['431']);
    expect(overflow).toMatch(/X-Request-Id: too-big-1\r\n/i);
    const cookie = await exchange(`GET /health HTTP/1.1\r\nX-Request-Id: too-big-2\r\nHost: x\r\nCookie: ${'c'.repeat(60_000)}\r\n\r\n`);
    expect(statuses(cookie)).toEqual(['431']);
    expect(cookie).toMatch(/X-Request-Id: too-big-2\r\n/i);
    // a bad chunk in the body of a request answered 401 before its body was read: that answer only
    const unauthorised = await exchange('POST /internal/sends HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n');
    expect(statuses(unauthorised)).toEqual(['401']);
    // never the id of the request pipelined after the refused one
    const next = await exchange('FOO /health HTTP/1.1\r\nHost: x\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\nX-Request-Id: the-next-one\r\n\r\n');
    expect(statuses(next)).toEqual(['400']);
    expect(next).not.toMatch(/the-next-one/);
    // after a request that closes the connection, the rest is ignored, not answered 400 in its place
    expect(statuses(await exchange('GET /health HTTP/1.0\r\n\r\nCONNECT a:443 HTTP/1.0\r\n\r\n'))).toEqual(['200']);
    expect(statuses(await exchange('GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\n\r\n'))).toEqual(['200']);
  });

  it('stays up, keeps every secret out of its logs, and returns near its memory baseline', async () => {
    if (skip) return;
    const health = await rawRequest(port, { method: 'GET', path: '/health' });
    expect(health.status).toBe(200);
    const ready = await rawRequest(port, { method: 'GET', path: '/ready' });
    expect(ready.status).toBe(200);

    const leaking = sut.logs.filter((line) => [...secrets].some((secret) => line.includes(secret)));
    expect(leaking.map((line) => line.slice(0, 300))).toEqual([]);
    expect(requests).toBeGreaterThan(2000);
    // Nothing the suite sent made a handler or a worker fail unexpectedly.
    expect(sut.logs.filter((line) => line.includes('"level":"error"')).map((line) => line.slice(0, 500))).toEqual([]);

    // The first rounds warm caches up (compiled validators, JIT code, pools); a leak shows as
    // growth that repeats: the heap after one more whole round must come back near where it was.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const before = heap();
    await bodyRound();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const after = heap();
    expect(failures).toEqual([]);
    expect(after - before).toBeLessThan(gc ? 16 * 1024 * 1024 : 128 * 1024 * 1024);
    expect(after - baseline).toBeLessThan(gc ? 192 * 1024 * 1024 : 512 * 1024 * 1024);
  }, 60_000);
});
