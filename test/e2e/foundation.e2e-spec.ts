import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { PROFILES, profileAvailable, startTestApp, TestApp } from '../support/test-app';

const run = promisify(execFile);

describe.each(PROFILES)('foundation (%s)', (profile) => {
  let sut: TestApp;
  let skip = false;

  beforeAll(async () => {
    skip = !(await profileAvailable(profile));
    if (!skip) sut = await startTestApp(profile);
  });
  afterAll(async () => {
    if (!skip) await sut.close();
  });

  const admin = () => `Bearer ${sut.tokens.admin}`;
  const internal = () => `Bearer ${sut.tokens.internal}`;

  it('creates an account with a working API key, then another key, and revokes it', async () => {
    if (skip) return;
    const account = await sut.createAccount('Acme');
    expect(account).toEqual({ id: expect.any(Number), name: 'Acme', apiKey: expect.stringMatching(/^sk_[A-Za-z0-9_-]{43}$/), apiKeyId: expect.stringMatching(/^key_/) });

    const key = await sut.http().post(`/admin/accounts/${account.id}/api-keys`).set('authorization', admin()).expect(201);
    expect(key.body).toEqual({ id: expect.stringMatching(/^key_/), apiKey: expect.stringMatching(/^sk_/) });

    await sut.http().get('/v3/no-such-route-but-authenticated').set('api-key', key.body.apiKey).expect(404);
    await sut.http().delete(`/admin/accounts/${account.id}/api-keys/${key.body.id}`).set('authorization', admin()).expect(204);
    const again = await sut.http().delete(`/admin/accounts/${account.id}/api-keys/${key.body.id}`).set('authorization', admin()).expect(404);
    expect(again.body).toEqual({ code: 'not_found', message: expect.any(String) });
    await sut.http().delete(`/admin/accounts/${account.id}/api-keys/key_unknown`).set('authorization', admin()).expect(404);
    await sut.http().post('/admin/accounts/999999/api-keys').set('authorization', admin()).expect(404);
    await sut.http().post('/admin/accounts/abc/api-keys').set('authorization', admin()).expect(404);
  });

  it('keeps the admin and internal tokens apart', async () => {
    if (skip) return;
    const noToken = await sut.http().post('/admin/accounts').send({ name: 'x' }).expect(401);
    expect(noToken.body).toEqual({ code: 'unauthorized', message: expect.any(String) });
    await sut.http().post('/admin/accounts').set('authorization', internal()).send({ name: 'x' }).expect(401);
    await sut.http().post('/admin/accounts').set('authorization', 'Bearer wrong').send({ name: 'x' }).expect(401);
    await sut.http().post('/admin/accounts').set('authorization', sut.tokens.admin).send({ name: 'x' }).expect(401);
    // The credential is checked before the body is read: no 400, 413 or 415 for a caller without one.
    const unauthenticated: Array<[string, Record<string, string>, string]> = [
      ['/admin/accounts', { authorization: 'Bearer wrong' }, '{bad'],
      ['/internal/events', {}, 'x'.repeat(2 * 1024 * 1024)],
      ['/v3/Webhook', { 'api-key': 'sk_wrong' }, '{bad'],
      ['/v3/Webhook', { 'content-type': 'text/plain' }, 'plain'],
    ];
    for (const [url, headers, payload] of unauthenticated) {
      const answer = await sut.app.getHttpAdapter().getInstance().inject({ method: 'POST', url, headers: { 'content-type': 'application/json', ...headers }, payload });
      expect({ url, status: answer.statusCode, code: answer.json().code }).toEqual({ url, status: 401, code: 'unauthorized' });
    }
    // The scheme is case-insensitive, and may be followed by more than one space (RFC 7235).
    await sut.http().post('/admin/accounts').set('authorization', `bearer ${sut.tokens.admin}`).send({ name: 'x' }).expect(201);
    await sut.http().post('/admin/accounts').set('authorization', `BEARER  ${sut.tokens.admin}`).send({ name: 'x' }).expect(201);
  });

  it('counts length limits in characters, so 200 emoji make a 200-character name (and are stored whole)', async () => {
    if (skip) return;
    const emoji = (n: number) => '😀'.repeat(n);
    const created = await sut.http().post('/admin/accounts').set('authorization', admin()).send({ name: emoji(200) }).expect(201);
    expect(created.body.name).toBe(emoji(200));
    const tooLong = await sut.http().post('/admin/accounts').set('authorization', admin()).send({ name: emoji(201) }).expect(400);
    expect(tooLong.body).toEqual({ code: 'invalid_parameter', message: 'name must be 1 to 200 characters' });

    const key = created.body.apiKey as string;
    const webhook = await sut.http().post('/v3/Webhook').set('api-key', key).send({ url: 'https://example.com/in', events: ['email.delivered'], description: emoji(500) }).expect(201);
    expect((await sut.http().get(`/v3/Webhook/${webhook.body.id}`).set('api-key', key).expect(200)).body.description).toBe(emoji(500));
    await sut.http().post('/v3/Webhook').set('api-key', key).send({ url: 'https://example.com/in', events: ['email.delivered'], description: emoji(501) }).expect(400);

    const target = await sut.http().post('/v3/automations/webhook-targets').set('api-key', key).send({ name: emoji(200), url: 'https://example.com/t' }).expect(201);
    await sut.http().post('/v3/automations/webhook-targets').set('api-key', key).send({ name: emoji(201), url: 'https://example.com/t' }).expect(400);
    const workflow = { trigger: { type: 'incoming_webhook' }, steps: [{ type: 'send_webhook', targetId: target.body.id, body: {} }] };
    const saved = await sut.http().post('/v3/automations/workflows').set('api-key', key).send({ name: emoji(200), ...workflow }).expect(201);
    expect(saved.body.name).toBe(emoji(200));
    await sut.http().post('/v3/automations/workflows').set('api-key', key).send({ name: emoji(201), ...workflow }).expect(400);
  });

  it('answers errors in the contract shape, never with internals', async () => {
    if (skip) return;
    const invalidJson = await sut.http().post('/admin/accounts').set('authorization', admin()).set('content-type', 'application/json').send('{"name":');
    expect(invalidJson.status).toBe(400);
    expect(invalidJson.body).toEqual({ code: 'invalid_json', message: expect.any(String) });

    // An empty body sent as application/json is no body: fine where none is needed, refused as
    // "not a JSON object" where one is, never as invalid JSON.
    const empty = await sut.http().post('/admin/accounts').set('authorization', admin()).set('content-type', 'application/json').send('');
    expect(empty.body).toEqual({ code: 'invalid_parameter', message: 'the request body must be a JSON object' });
    const account = await sut.createAccount('Empty body');
    await sut.http().post(`/admin/accounts/${account.id}/api-keys`).set('authorization', admin()).set('content-type', 'application/json').send('').expect(201);
    const blank = await sut.http().post('/admin/accounts').set('authorization', admin()).set('content-type', 'application/json').send('  ');
    expect(blank.body).toEqual({ code: 'invalid_json', message: expect.any(String) });
    // So is an empty body under another content type (`curl -X POST -d ''` labels it a form); one byte of it is 415.
    const raw = (headers: Record<string, string>, payload?: string, url = `/admin/accounts/${account.id}/api-keys`) =>
      sut.app.getHttpAdapter().getInstance().inject({ method: 'POST', url, headers: { authorization: admin(), ...headers }, ...(payload === undefined ? {} : { payload }) });
    for (const type of ['application/x-www-form-urlencoded', 'text/plain', 'application/octet-stream']) {
      expect((await raw({ 'content-type': type }, '')).statusCode).toBe(201);
      expect((await raw({ 'content-type': type })).statusCode).toBe(201);
      expect((await raw({ 'content-type': type }, 'a=b')).json()).toEqual({ code: 'unsupported_media_type', message: 'this route accepts application/json bodies only' });
      expect((await raw({ 'content-type': type }, '', '/admin/accounts')).json()).toEqual({ code: 'invalid_parameter', message: 'the request body must be a JSON object' });
    }

    // Bytes that are not UTF-8 are refused, never stored as replacement characters, whatever the charset says.
    const notUtf8 = Buffer.concat([Buffer.from('{"name":"Caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
    for (const type of ['application/json', 'application/json; charset=latin1']) {
      const latin1 = await sut.app.getHttpAdapter().getInstance().inject({ method: 'POST', url: '/admin/accounts', headers: { authorization: admin(), 'content-type': type }, payload: notUtf8 });
      expect({ type, status: latin1.statusCode, body: latin1.json() }).toEqual({ type, status: 400, body: { code: 'invalid_json', message: 'the request body is not valid UTF-8 (JSON text is UTF-8)' } });
    }
    // The server does not decompress: a Content-Encoding other than identity is 415, compressed or not.
    const inject = (headers: Record<string, string>, payload: Buffer | string) =>
      sut.app.getHttpAdapter().getInstance().inject({ method: 'POST', url: '/admin/accounts', headers: { authorization: admin(), 'content-type': 'application/json', ...headers }, payload });
    for (const [encoding, payload] of [['gzip', gzipSync('{"name":"x"}')], ['gzip', '{"name":"x"}'], ['br, gzip', '{"name":"x"}']] as const) {
      const encoded = await inject({ 'content-encoding': encoding }, payload);
      expect({ encoding, status: encoded.statusCode, code: encoded.json().code }).toEqual({ encoding, status: 415, code: 'unsupported_media_type' });
    }
    expect((await inject({ 'content-encoding': 'identity' }, '{"name":"x"}')).statusCode).toBe(201);
    // JSON with a __proto__ key parses; the server refuses the key, saying so.
    for (const body of ['{"name":"x","__proto__":{"admin":true}}', '{"name":"x","constructor":{"prototype":{"admin":true}}}']) {
      const poisoned = await sut.http().post('/admin/accounts').set('authorization', admin()).set('content-type', 'application/json').send(body);
      expect({ status: poisoned.status, code: poisoned.body.code, message: poisoned.body.message }).toEqual({ status: 400, code: 'invalid_parameter', message: expect.stringContaining('__proto__') });
    }

    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x']) {
      const wrongType = await sut.http().post('/admin/accounts').set('authorization', admin()).set('content-type', type).send('name=x');
      expect({ type, status: wrongType.status, body: wrongType.body }).toEqual({ type, status: 415, body: { code: 'unsupported_media_type', message: expect.any(String) } });
    }

    const tooLarge = await sut
      .http()
      .post('/admin/accounts')
      .set('authorization', admin())
      .set('content-type', 'application/json')
      .send(JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) }));
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.code).toBe('payload_too_large');

    const missing = await sut.http().post('/admin/accounts').set('authorization', admin()).send({});
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('invalid_parameter');

    const notObject = await sut.http().post('/admin/accounts').set('authorization', admin()).send([1, 2]);
    expect(notObject.status).toBe(400);
    expect(notObject.body.code).toBe('invalid_parameter');

    const unknownField = await sut.http().post('/admin/accounts').set('authorization', admin()).send({ name: 'x', extra: 1 });
    expect(unknownField.status).toBe(400);

    const unknownRoute = await sut.http().get('/nope');
    expect(unknownRoute.status).toBe(404);
    expect(unknownRoute.body).toEqual({ code: 'not_found', message: expect.any(String) });

    const wrongMethod = await sut.http().put('/health');
    expect(wrongMethod.status).toBe(404);
    expect(wrongMethod.body.code).toBe('not_found');
  });

  it('requires an api-key on /v3 and /v2', async () => {
    if (skip) return;
    for (const path of ['/v3/Webhook', '/v2/webhooks']) {
      const response = await sut.http().get(path).set('api-key', 'sk_wrong');
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ code: 'unauthorized', message: expect.any(String) });
    }
  });

  it('serves health, readiness, metrics and the OpenAPI document', async () => {
    if (skip) return;
    await sut.http().get('/health').expect(200, { status: 'ok' });
    const ready = await sut.http().get('/ready').expect(200);
    expect(ready.body).toEqual({ status: 'ready', storage: 'up', queue: 'up' });
    const metrics = await sut.http().get('/metrics').expect(200);
    expect(metrics.headers['content-type']).toMatch(/^text\/plain/);
    expect(metrics.text).toContain('http_requests_total{method="GET",route="/health",status="200"}');
    expect(metrics.text).toContain('http_request_duration_seconds_bucket');
    const docs = await sut.http().get('/docs/json').expect(200);
    expect(docs.body.openapi).toMatch(/^3\./);
    expect(Object.keys(docs.body.paths)).toEqual(expect.arrayContaining(['/admin/accounts', '/health', '/ready', '/metrics']));
    const page = await sut.http().get('/docs').redirects(1);
    expect(page.status).toBe(200);
    expect(page.text).toContain('swagger');
  });

  it('echoes a request id and never logs a credential', async () => {
    if (skip) return;
    const account = await sut.createAccount('Logged');
    const response = await sut.http().get('/health').set('x-request-id', 'req-123').set('api-key', account.apiKey).expect(200);
    expect(response.headers['x-request-id']).toBe('req-123');
    const all = sut.logs.join('');
    expect(all).toContain('req-123');
    expect(all).not.toContain(account.apiKey);
    expect(all).not.toContain(sut.tokens.admin);
  });

  it('creates accounts from the command line in the same database', async () => {
    if (skip) return;
    const env = { ...process.env, ...envOf(sut) };
    const { stdout } = await run('node', [join(__dirname, '../../dist/apps/api/src/cli.js'), 'account', 'create', '--name', 'Cli Corp'], { env });
    const created = JSON.parse(stdout);
    expect(created).toEqual({ id: expect.any(Number), name: 'Cli Corp', apiKey: expect.stringMatching(/^sk_/), apiKeyId: expect.stringMatching(/^key_/) });
    await sut.http().get('/v3/anything').set('api-key', created.apiKey).expect(404);
  });
});

function envOf(app: TestApp): Record<string, string> {
  const { storage } = app.config;
  return storage.kind === 'sqlite' ? { STORAGE: 'sqlite', SQLITE_PATH: storage.sqlitePath } : { STORAGE: 'mysql', DATABASE_URL: storage.databaseUrl! };
}
