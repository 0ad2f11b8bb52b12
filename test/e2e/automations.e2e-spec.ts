import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IncomingTriggerSettings } from '../../libs/incoming-trigger/src';
import { TypeormDatabase } from '../../libs/adapters/sql/src/typeorm-database';
import { verify } from '../../libs/signing/src';
import { createMysqlDatabase } from '../support/databases';
import { eventually } from '../support/eventually';
import { deleteTestStream } from '../support/nats';
import { Receiver, Reply, startReceiver } from '../support/receiver';
import { Profile, PROFILES, profileAvailable, startTestApp, TestApp } from '../support/test-app';
import { sleep } from '../support/waiting';

const LIMIT = 262_144;

describe.each(PROFILES)('automations (%s)', (profile: Profile) => {
  let sut: TestApp;
  let receiver: Receiver;
  let skip = false;
  /** How the receiver answers each path: the n-th call (0-based) to that path gets replies(n). */
  const replies = new Map<string, (n: number) => Reply>();

  beforeAll(async () => {
    skip = !(await profileAvailable(profile));
    if (skip) return;
    receiver = await startReceiver((request) => {
      const answer = replies.get(request.path);
      return answer ? answer(receiver.requestsTo(request.path).length - 1) : { status: 200 };
    });
    sut = await startTestApp(profile, { env: { TARGET_RETRY_SCHEDULE: '50ms,50ms,50ms' } });
  });
  afterAll(async () => {
    if (skip) return;
    await sut.close();
    await receiver.close();
  });

  const newPath = () => `/p/${randomBytes(6).toString('hex')}`;
  const api = (apiKey: string) => ({
    post: (path: string, body?: unknown) => sut.http().post(path).set('api-key', apiKey).send(body as object),
    put: (path: string, body: unknown) => sut.http().put(path).set('api-key', apiKey).send(body as object),
    get: (path: string) => sut.http().get(path).set('api-key', apiKey),
    delete: (path: string) => sut.http().delete(path).set('api-key', apiKey),
  });

  async function createTarget(apiKey: string, body: Record<string, unknown> = {}) {
    const response = await api(apiKey).post('/v3/automations/webhook-targets', { name: 'Receiver', url: receiver.url + newPath(), ...body });
    expect(response.status).toBe(201);
    return response.body as { id: string; url: string; signingKey?: string };
  }

  /** Creates and activates a workflow; returns its id and the path of its trigger URL. */
  async function activeWorkflow(apiKey: string, steps: unknown[], name = 'Flow') {
    const created = await api(apiKey).post('/v3/automations/workflows', { name, trigger: { type: 'incoming_webhook' }, steps });
    expect(created.status).toBe(201);
    const activated = await api(apiKey).post(`/v3/automations/workflows/${created.body.id}/activate`);
    expect(activated.status).toBe(200);
    return { id: created.body.id as string, path: new URL(activated.body.triggerUrl).pathname, triggerUrl: activated.body.triggerUrl as string };
  }

  const trigger = (path: string, body: string, contentType = 'application/json') => sut.http().post(path).set('content-type', contentType).send(body);

  async function runsOf(apiKey: string, workflowId: string) {
    const response = await api(apiKey).get(`/v3/automations/workflows/${workflowId}/runs`);
    expect(response.status).toBe(200);
    return response.body.runs as Array<{ id: string; status: string; startedAt: string; finishedAt: string | null; trigger: { body: unknown }; steps: Array<{ type: string; status: string; attempts: Array<Record<string, unknown>> }> }>;
  }

  it('manages webhook targets: create, list, read, change, delete; the key shown only when generated', async () => {
    if (skip) return;
    const { apiKey } = await sut.createAccount();
    const url = receiver.url + newPath();
    const created = await api(apiKey).post('/v3/automations/webhook-targets', { name: 'CRM', url, headers: { Authorization: 'Bearer abc' }, generateSigningKey: true });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^tgt_/),
      name: 'CRM',
      url,
      headers: { Authorization: 'Bearer abc' },
      signed: true,
      signingKey: expect.stringMatching(/^tsk_/),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const { signingKey, ...shown } = created.body;
    const path = `/v3/automations/webhook-targets/${created.body.id}`;
    expect((await api(apiKey).get(path)).body).toEqual(shown);
    expect((await api(apiKey).get('/v3/automations/webhook-targets')).body).toEqual({ targets: [shown], nextCursor: null });

    const changed = await api(apiKey).put(path, { name: 'CRM v2', url, signingKey: null });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ name: 'CRM v2', headers: { Authorization: 'Bearer abc' }, signed: false });
    expect(changed.body).not.toHaveProperty('signingKey');
    const regenerated = await api(apiKey).put(path, { name: 'CRM v2', url, generateSigningKey: true });
    expect(regenerated.body.signingKey).toMatch(/^tsk_/);
    expect(regenerated.body.signingKey).not.toBe(signingKey);
    // Header names that Object.prototype also has are names like any other.
    const oddNames = { constructor: 'c', toString: 't', valueOf: 'v', hasOwnProperty: 'h' };
    expect((await api(apiKey).put(path, { name: 'CRM v2', url, headers: oddNames })).body.headers).toEqual(oddNames);
    expect((await api(apiKey).get(path)).body.headers).toEqual(oddNames);

    await api(apiKey).delete(path).expect(204);
    await api(apiKey).get(path).expect(404);
    expect(sut.logs.join('')).not.toContain(signingKey);
    expect(sut.logs.join('')).not.toContain(regenerated.body.signingKey);
  });

  it('keeps at most 100 targets and 100 workflows per account, listed in pages by ?limit= and ?cursor=', async () => {
    if (skip) return;
    const { apiKey } = await sut.createAccount();
    const kinds = [
      { path: '/v3/automations/webhook-targets', key: 'targets', body: (i: number) => ({ name: `T${i}`, url: `${receiver.url}/t/${i}` }) },
      { path: '/v3/automations/workflows', key: 'workflows', body: (i: number) => ({ name: `W${i}`, trigger: { type: 'incoming_webhook' }, steps: [{ type: 'delay', seconds: 60 }] }) },
    ];
    for (const kind of kinds) {
      const ids: string[] = [];
      for (let i = 0; i < 75; i += 25) {
        const created = await Promise.all(Array.from({ length: 25 }, (_, k) => api(apiKey).post(kind.path, kind.body(i + k))));
        expect(created.map((r) => r.status)).toEqual(created.map(() => 201));
        ids.push(...created.map((r) => r.body.id as string));
      }
      // 35 at once for the last 25 places: concurrent creates never pass the limit.
      const race = await Promise.all(Array.from({ length: 35 }, (_, k) => api(apiKey).post(kind.path, kind.body(75 + k))));
      const outcomes = race.map((r) => (r.status === 201 ? 201 : `${r.status} ${r.body.code}`));
      expect(outcomes.filter((o) => o === 201)).toHaveLength(25);
      expect(outcomes.filter((o) => o !== 201)).toEqual(Array.from({ length: 10 }, () => '400 limit_exceeded'));
      ids.push(...race.filter((r) => r.status === 201).map((r) => r.body.id as string));
      const refused = await api(apiKey).post(kind.path, kind.body(101));
      expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 400, code: 'limit_exceeded' });

      const whole = await api(apiKey).get(kind.path).expect(200);
      expect([whole.body[kind.key].length, whole.body.nextCursor]).toEqual([100, null]);
      const paged: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { body: Record<string, unknown> } = await api(apiKey).get(`${kind.path}?limit=40${cursor ? `&cursor=${cursor}` : ''}`).expect(200);
        paged.push(...(page.body[kind.key] as Array<{ id: string }>).map((item) => item.id));
        cursor = page.body.nextCursor as string | null;
      } while (cursor);
      expect(paged).toEqual([...ids].sort());
      await api(apiKey).get(`${kind.path}?limit=0`).expect(400);
      await api(apiKey).get(`${kind.path}?limit=101`).expect(400);
      await api(apiKey).get(`${kind.path}?cursor=nope`).expect(400);
    }
  });

  it('refuses invalid targets with 400 invalid_parameter', async () => {
    if (skip) return;
    const { apiKey } = await sut.createAccount();
    const url = receiver.url + '/x';
    const cases: Array<Record<string, unknown>> = [
      { name: 'x', url: 'ftp://example.com/' },
      { name: 'x', url: 'not a url' },
      { name: 'x' },
      { url },
      { name: 'x', url, headers: { 'Content-Type': 'text/plain' } },
      { name: 'x', url, headers: { host: 'evil.example' } },
      { name: 'x', url, headers: { 'x-service-automation-signature': 'forged' } },
      { name: 'x', url, headers: { 'Transfer-Encoding': 'chunked' } },
      { name: 'x', url, headers: { Connection: 'close' } },
      { name: 'x', url, headers: { 'X-Injected': 'a\r\nX-Evil: 1' } },
      { name: 'x', url, headers: { 'X-Nul': 'a\u0000b' } },
      { name: 'x', url, headers: { 'Bad Name': 'v' } },
      { name: 'x', url, headers: { 'X-A': 5 } },
      { name: 'x', url, signingKey: 'short' },
      { name: 'x', url, signingKey: 'a-long-enough-signing-key', generateSigningKey: true },
      { name: 'x', url, extra: true },
    ];
    for (const body of cases) {
      const response = await api(apiKey).post('/v3/automations/webhook-targets', body);
      expect({ body, status: response.status, code: response.body.code }).toEqual({ body, status: 400, code: 'invalid_parameter' });
    }
    await sut.http().get('/v3/automations/webhook-targets').expect(401);
  });

  it('validates workflows on create and update, and moves them draft -> active -> inactive -> active', async () => {
    if (skip) return;
    const { apiKey } = await sut.createAccount();
    const target = await createTarget(apiKey);
    const send = { type: 'send_webhook', targetId: target.id, body: { a: '{{ trigger.body.a }}' } };
    const created = await api(apiKey).post('/v3/automations/workflows', { name: 'Orders', trigger: { type: 'incoming_webhook' }, steps: [send, { type: 'delay', seconds: 60 }] });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^wf_/),
      name: 'Orders',
      state: 'draft',
      trigger: { type: 'incoming_webhook' },
      steps: [send, { type: 'delay', seconds: 60 }],
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const path = `/v3/automations/workflows/${created.body.id}`;

    const bad: unknown[] = [
      { name: 'x', trigger: { type: 'incoming_webhook' }, steps: [] },
      { name: 'x', trigger: { type: 'schedule' }, steps: [send] },
      { name: 'x', trigger: { type: 'incoming_webhook' }, steps: [{ type: 'send_sms' }] },
      { name: 'x', trigger: { type: 'incoming_webhook' }, steps: [{ ...send, targetId: 'tgt_01jd2x7q9m3k8p4r6t1v5w0y2z' }] },
      { name: 'x', trigger: { type: 'incoming_webhook' }, steps: [{ ...send, body: { a: '{{ trigger.body.a' } }] },
      { name: 'x', trigger: { type: 'incoming_webhook' }, steps: [{ ...send, body: '{{ contact.email }}' }] },
      { name: 'x', trigger: { type: 'incoming_webhook' }, steps: [{ type: 'delay', seconds: 0 }] },
      { name: 'x', trigger: { type: 'incoming_webhook' }, steps: [{ type: 'delay', seconds: 30 * 86400 + 1 }] },
      { name: '', trigger: { type: 'incoming_webhook' }, steps: [send] },
      [send],
    ];
    for (const body of bad) {
      for (const response of [await api(apiKey).post('/v3/automations/workflows', body), await api(apiKey).put(path, body)]) {
        expect({ body, status: response.status, code: response.body.code }).toEqual({ body, status: 400, code: 'invalid_parameter' });
      }
    }

    expect((await api(apiKey).post(`${path}/deactivate`)).status).toBe(400);
    const first = await api(apiKey).post(`${path}/activate`);
    expect(first.body).toMatchObject({ id: created.body.id, state: 'active', triggerUrl: expect.stringMatching(/^http:\/\/localhost:\d+\/hooks\/[A-Za-z0-9_-]{43}$/) });
    expect((await api(apiKey).get(path)).body).not.toHaveProperty('triggerUrl');
    expect((await api(apiKey).get('/v3/automations/workflows')).body.workflows).toEqual([expect.objectContaining({ id: created.body.id, state: 'active' })]);
    const renamed = await api(apiKey).put(path, { name: 'Renamed', trigger: { type: 'incoming_webhook' }, steps: [send] });
    expect(renamed.body).toMatchObject({ name: 'Renamed', state: 'active', steps: [send] });
    expect((await api(apiKey).post(`${path}/deactivate`)).body).toMatchObject({ state: 'inactive' });
    expect((await api(apiKey).post(`${path}/activate`)).body).toMatchObject({ state: 'active' });
  });

  it('runs a trigger call through the queue: typed template, custom headers, verifiable signature, recorded run', async () => {
    if (skip) return;
    const account = await sut.createAccount();
    const target = await createTarget(account.apiKey, { headers: { 'X-Tenant': 'acme', Authorization: 'Bearer t0k', constructor: 'c' }, generateSigningKey: true });
    const template = {
      orderId: '{{ trigger.body.order.id }}',
      total: '{{ trigger.body.order.total }}',
      paid: '{{ trigger.body.paid }}',
      items: '{{ trigger.body.order.items }}',
      firstSku: '{{ trigger.body.order.items[0].sku }}',
      missing: '{{ trigger.body.nope.deeper }}',
      summary: 'Order {{ trigger.body.order.id }} for {{ trigger.body.customer["full name"] }}: {{ trigger.body.order.total }} {{ trigger.body.nope }}',
      tricky: '{{ trigger.body.tricky }}',
      trickyText: 'says {{ trigger.body.tricky }}',
      meta: { run: '{{ run.id }}', workflow: '{{ workflow.id }}', name: '{{ workflow.name }}', account: '{{ account.id }}', receivedAt: '{{ trigger.receivedAt }}' },
      literal: [1, true, null, 'plain'],
    };
    const workflow = await activeWorkflow(account.apiKey, [{ type: 'send_webhook', targetId: target.id, body: template }], 'Paid "orders"');
    const tricky = 'a "quoted" {{ run.id }} \\ value';
    const raw = JSON.stringify({ order: { id: 'o-1', total: 12.5, items: [{ sku: 'A', qty: 2 }] }, paid: true, customer: { 'full name': 'Zoë' }, tricky });

    const accepted = await trigger(workflow.path, raw);
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual({ runId: expect.stringMatching(/^run_/) });
    const runId = accepted.body.runId as string;

    const [call] = await eventually(() => {
      const calls = receiver.requestsTo(new URL(target.url).pathname);
      expect(calls).toHaveLength(1);
      return calls;
    }, 15_000);
    const runs = await eventually(async () => {
      const list = await runsOf(account.apiKey, workflow.id);
      expect(list[0].status).toBe('succeeded');
      return list;
    });
    expect(call.method).toBe('POST');
    expect(call.headers['content-type']).toBe('application/json');
    expect(call.headers['x-tenant']).toBe('acme');
    expect(call.headers.authorization).toBe('Bearer t0k');
    expect(Object.getOwnPropertyDescriptor(call.headers, 'constructor')?.value).toBe('c');
    const signature = call.headers['x-service-automation-signature'] as string;
    expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(() => verify(call.rawBody, signature, target.signingKey!)).not.toThrow();
    expect(() => verify(call.rawBody, signature, 'tsk_another-key-entirely')).toThrow();

    expect(JSON.parse(call.body)).toEqual({
      orderId: 'o-1',
      total: 12.5,
      paid: true,
      items: [{ sku: 'A', qty: 2 }],
      firstSku: 'A',
      missing: null,
      summary: 'Order o-1 for Zoë: 12.5 ',
      tricky,
      trickyText: `says ${tricky}`,
      meta: { run: runId, workflow: workflow.id, name: 'Paid "orders"', account: account.id, receivedAt: runs[0].startedAt },
      literal: [1, true, null, 'plain'],
    });
    expect(runs).toEqual([
      {
        id: runId,
        status: 'succeeded',
        startedAt: expect.any(String),
        finishedAt: expect.any(String),
        trigger: { body: JSON.parse(raw) },
        steps: [{ type: 'send_webhook', status: 'succeeded', attempts: [{ at: expect.any(String), durationMs: expect.any(Number), httpStatus: 200, error: null }] }],
      },
    ]);

    // Paths that are not quite the route's may still carry a live token: the access line hides it too.
    const lookalike = `tok${Date.now()}x${Math.random().toString(36).slice(2)}`;
    const fastify = sut.app.getHttpAdapter().getInstance();
    for (const url of [`//hooks/${lookalike}`, `/hooks//${lookalike}`, `/Hooks/${lookalike}`, `/h%6Foks/${lookalike}`]) {
      const answer = await fastify.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: '{}' });
      expect(answer.statusCode).toBe(404);
    }
    await eventually(() => expect(sut.logs.filter((line) => line.includes('[redacted]') && line.includes('"status":404')).length).toBeGreaterThanOrEqual(4));
    const logs = sut.logs.join('');
    expect(logs).not.toContain(workflow.path.slice('/hooks/'.length));
    expect(logs).not.toContain(lookalike);
    expect(logs).not.toContain(target.signingKey);
  });

  it('forwards integers past 2^53 of the trigger body with their own digits (64-bit order ids)', async () => {
    if (skip) return;
    const account = await sut.createAccount();
    const target = await createTarget(account.apiKey);
    const template = { id: '{{ trigger.body.order.id }}', order: '{{ trigger.body.order }}', text: 'order {{ trigger.body.order.id }}' };
    const workflow = await activeWorkflow(account.apiKey, [{ type: 'send_webhook', targetId: target.id, body: template }]);
    expect((await trigger(workflow.path, '{"order": {"id": 820982911946154508, "total": 12.5}}')).status).toBe(202);

    const [call] = await eventually(() => {
      const calls = receiver.requestsTo(new URL(target.url).pathname);
      expect(calls).toHaveLength(1);
      return calls;
    }, 15_000);
    expect(call.body).toBe('{"id":820982911946154508,"order":{"id":820982911946154508,"total":12.5},"text":"order 820982911946154508"}');
  });

  it('accepts any JSON value up to 262,144 bytes and refuses 262,145 with 413', async () => {
    if (skip) return;
    const { apiKey } = await sut.createAccount();
    const workflow = await activeWorkflow(apiKey, [{ type: 'delay', seconds: 86_400 }]);
    for (const value of ['null', '"text"', '42', '-1.5e3', 'true', '[1,{"a":[]}]', '{}', ' \n{"spaced": true}\n ']) {
      const response = await trigger(workflow.path, value);
      expect({ value, status: response.status }).toEqual({ value, status: 202 });
    }
    await trigger(workflow.path, '{"a":1}', 'application/json; charset=utf-8').expect(202);

    const atLimit = JSON.stringify({ pad: 'é'.repeat(1000) + 'x'.repeat(LIMIT - 2000 - 10) });
    expect(Buffer.byteLength(atLimit)).toBe(LIMIT);
    const accepted = await trigger(workflow.path, atLimit);
    expect(accepted.status).toBe(202);
    const overLimit = atLimit.slice(0, -2) + 'x"}';
    expect(Buffer.byteLength(overLimit)).toBe(LIMIT + 1);
    const refused = await trigger(workflow.path, overLimit);
    expect(refused.status).toBe(413);
    expect(refused.body).toEqual({ code: 'payload_too_large', message: expect.any(String) });

    const runs = await runsOf(apiKey, workflow.id);
    const stored = runs.find((r) => r.id === accepted.body.runId)!;
    expect(JSON.stringify(stored.trigger.body)).toBe(atLimit);
  });

  it('refuses a body nesting deeper than 64 levels, or a number past a double, with 400 invalid_parameter and starts no run (413 when also too large)', async () => {
    if (skip) return;
    const { apiKey } = await sut.createAccount();
    const workflow = await activeWorkflow(apiKey, [{ type: 'delay', seconds: 86_400 }]);
    const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
    await trigger(workflow.path, nested(64)).expect(202);
    const deep = await trigger(workflow.path, nested(65));
    expect({ status: deep.status, body: deep.body }).toEqual({ status: 400, body: { code: 'invalid_parameter', message: expect.stringContaining('deeper than 64 levels') } });
    const crafted = await trigger(workflow.path, nested(LIMIT / 2));
    expect(crafted.status).toBe(400);
    expect((await trigger(workflow.path, nested(LIMIT / 2 + 1))).status).toBe(413);
    // a number no double holds is refused as on every route (it would reach targets as null, or "Infinity" in text)
    for (const body of ['{"v":1e400}', '[1,-1e400]', '1e400']) {
      const huge = await trigger(workflow.path, body);
      expect({ body, status: huge.status, message: huge.body.message }).toEqual({ body, status: 400, message: expect.stringContaining('too large for a double') });
    }
    await trigger(workflow.path, '{"v":1.7976931348623157e308,"big":12345678901234567890123}').expect(202);
    expect((await runsOf(apiKey, workflow.id)).map((run) => run.trigger.body)).toEqual([{ v: 1.7976931348623157e308, big: 12345678901234567890123 }, JSON.parse(nested(64))]);
  });

  it('lists runs whatever their stored body: one stored before the depth limit is shown as null, never a 500', async () => {
    if (skip) return;
    const { apiKey } = await sut.createAccount();
    const workflow = await activeWorkflow(apiKey, [{ type: 'delay', seconds: 86_400 }]);
    const runId = (await trigger(workflow.path, '{"ok":true}').expect(202)).body.runId as string;
    // As an older version stored it: 262,144 bytes of nesting, accepted before the limit existed.
    const deep = '['.repeat(LIMIT / 2) + ']'.repeat(LIMIT / 2);
    await sut.app.get(TypeormDatabase).exec('UPDATE automation_runs SET trigger_body = ? WHERE id = ?', [deep, runId]);
    const runs = await runsOf(apiKey, workflow.id);
    expect(runs.map((run) => [run.id, run.trigger.body])).toEqual([[runId, null]]);
  });

  it('ignores a leading UTF-8 byte order mark, as the JSON routes do, and stores the body without it', async () => {
    if (skip) return;
    const { apiKey } = await sut.createAccount();
    const workflow = await activeWorkflow(apiKey, [{ type: 'delay', seconds: 86_400 }]);
    const payload = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"bom":true}')]);
    const response = await sut.app.getHttpAdapter().getInstance().inject({ method: 'POST', url: workflow.path, headers: { 'content-type': 'application/json' }, payload });
    expect(response.statusCode).toBe(202);
    const runs = await runsOf(apiKey, workflow.id);
    expect(runs.map((run) => [run.id, run.trigger.body])).toEqual([[response.json().runId, { bom: true }]]);
    // A mark anywhere else is not a byte order mark: the body is not JSON.
    const inside = await sut.app.getHttpAdapter().getInstance().inject({ method: 'POST', url: workflow.path, headers: { 'content-type': 'application/json' }, payload: Buffer.concat([Buffer.from(' '), payload]) });
    expect({ status: inside.statusCode, code: inside.json().code }).toEqual({ status: 400, code: 'invalid_json' });
  });

  it('answers 400 for a body that is not JSON, 415 for another content type, 404 for an unknown token', async () => {
    if (skip) return;
    const { apiKey } = await sut.createAccount();
    const workflow = await activeWorkflow(apiKey, [{ type: 'delay', seconds: 86_400 }]);
    const notUtf8 = Buffer.concat([Buffer.from('{"x":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    for (const body of ['{', '{"a":1}x', "{'a':1}", '', notUtf8]) {
      // inject sends the bytes as they are (supertest would serialise a Buffer as JSON).
      const response = await sut.app.getHttpAdapter().getInstance().inject({ method: 'POST', url: workflow.path, headers: { 'content-type': 'application/json' }, payload: body });
      expect({ body, status: response.statusCode, payload: response.json() }).toEqual({ body, status: 400, payload: { code: 'invalid_json', message: expect.any(String) } });
    }
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x']) {
      const response = await trigger(workflow.path, '{"a":1}', type);
      expect({ type, status: response.status, code: response.body.code }).toEqual({ type, status: 415, code: 'unsupported_media_type' });
    }
    const noBody = await sut.http().post(workflow.path);
    expect(noBody.status).toBe(415);
    const unknown = await trigger('/hooks/' + randomBytes(32).toString('base64url'), '{}');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ code: 'not_found', message: 'no active trigger at this URL' });
    await sut.http().get(workflow.path).expect(404);
    expect(await runsOf(apiKey, workflow.id)).toEqual([]);
  });

  it('voids the URL on deactivation and on every activation; inactive and unknown get the same 404', async () => {
    if (skip) return;
    const { apiKey } = await sut.createAccount();
    const workflow = await activeWorkflow(apiKey, [{ type: 'delay', seconds: 86_400 }]);
    await trigger(workflow.path, '{}').expect(202);
    const unknown = await trigger('/hooks/' + randomBytes(32).toString('base64url'), '{}');

    const deactivated = await api(apiKey).post(`/v3/automations/workflows/${workflow.id}/deactivate`);
    expect(deactivated.body).toMatchObject({ state: 'inactive' });
    const inactive = await trigger(workflow.path, '{}');
    expect({ status: inactive.status, body: inactive.body }).toEqual({ status: unknown.status, body: unknown.body });

    const second = await api(apiKey).post(`/v3/automations/workflows/${workflow.id}/activate`);
    const secondPath = new URL(second.body.triggerUrl).pathname;
    expect(secondPath).not.toBe(workflow.path);
    await trigger(workflow.path, '{}').expect(404);
    await trigger(secondPath, '{}').expect(202);

    const third = await api(apiKey).post(`/v3/automations/workflows/${workflow.id}/activate`);
    await trigger(secondPath, '{}').expect(404);
    await trigger(new URL(third.body.triggerUrl).pathname, '{}').expect(202);

    await api(apiKey).delete(`/v3/automations/workflows/${workflow.id}`).expect(204);
    await trigger(new URL(third.body.triggerUrl).pathname, '{}').expect(404);
  });

  it('retries a failed call on TARGET_RETRY_SCHEDULE and records every attempt', async () => {
    if (skip) return;
    const { apiKey } = await sut.createAccount();
    const flaky = await createTarget(apiKey);
    replies.set(new URL(flaky.url).pathname, (n) => ({ status: n === 0 ? 500 : 200 }));
    const workflow = await activeWorkflow(apiKey, [{ type: 'send_webhook', targetId: flaky.id, body: { n: '{{ trigger.body.n }}' } }]);
    await trigger(workflow.path, '{"n":1}').expect(202);
    const [run] = await eventually(async () => {
      const runs = await runsOf(apiKey, workflow.id);
      expect(runs[0]?.status).toBe('succeeded');
      return runs;
    }, 15_000);
    expect(run.steps[0].attempts).toEqual([
      { at: expect.any(String), durationMs: expect.any(Number), httpStatus: 500, error: null },
      { at: expect.any(String), durationMs: expect.any(Number), httpStatus: 200, error: null },
    ]);
    const calls = receiver.requestsTo(new URL(flaky.url).pathname);
    expect(calls.map((c) => c.body)).toEqual(['{"n":1}', '{"n":1}']);
    expect(calls[1].at - calls[0].at).toBeGreaterThanOrEqual(40);
  });

  it('fails the run once the retries are spent, skipping the later steps', async () => {
    if (skip) return;
    const { apiKey } = await sut.createAccount();
    const broken = await createTarget(apiKey);
    replies.set(new URL(broken.url).pathname, () => ({ status: 503 }));
    const after = await createTarget(apiKey);
    const workflow = await activeWorkflow(apiKey, [
      { type: 'send_webhook', targetId: broken.id, body: {} },
      { type: 'send_webhook', targetId: after.id, body: {} },
    ]);
    await trigger(workflow.path, '{}').expect(202);
    const [run] = await eventually(async () => {
      const runs = await runsOf(apiKey, workflow.id);
      expect(runs[0]?.status).toBe('failed');
      return runs;
    }, 15_000);
    expect(run.finishedAt).not.toBeNull();
    expect(run.steps.map((s) => s.status)).toEqual(['failed', 'skipped']);
    expect(run.steps[0].attempts.map((a) => a.httpStatus)).toEqual([503, 503, 503, 503]);
    expect(receiver.requestsTo(new URL(after.url).pathname)).toHaveLength(0);
  });

  it('records transport errors on the attempt', async () => {
    if (skip) return;
    const { apiKey } = await sut.createAccount();
    const refused = await api(apiKey).post('/v3/automations/webhook-targets', { name: 'closed port', url: 'http://127.0.0.1:9/hook' });
    const workflow = await activeWorkflow(apiKey, [{ type: 'send_webhook', targetId: refused.body.id, body: {} }]);
    await trigger(workflow.path, '{}').expect(202);
    const [run] = await eventually(async () => {
      const runs = await runsOf(apiKey, workflow.id);
      expect(runs[0]?.status).toBe('failed');
      return runs;
    }, 15_000);
    expect(run.steps[0].attempts).toHaveLength(4);
    expect(run.steps[0].attempts[0]).toEqual({ at: expect.any(String), durationMs: expect.any(Number), httpStatus: null, error: 'connection_refused' });
  });

  it('keeps accounts apart: another account sees 404 and cannot use the targets', async () => {
    if (skip) return;
    const owner = await sut.createAccount('Owner');
    const other = await sut.createAccount('Other');
    const target = await createTarget(owner.apiKey);
    const workflow = await activeWorkflow(owner.apiKey, [{ type: 'delay', seconds: 86_400 }]);
    const targetPath = `/v3/automations/webhook-targets/${target.id}`;
    const workflowPath = `/v3/automations/workflows/${workflow.id}`;
    const body = { name: 'x', trigger: { type: 'incoming_webhook' }, steps: [{ type: 'delay', seconds: 5 }] };
    const attempts = [
      api(other.apiKey).get(targetPath),
      api(other.apiKey).put(targetPath, { name: 'x', url: receiver.url }),
      api(other.apiKey).delete(targetPath),
      api(other.apiKey).get(workflowPath),
      api(other.apiKey).put(workflowPath, body),
      api(other.apiKey).delete(workflowPath),
      api(other.apiKey).post(`${workflowPath}/activate`),
      api(other.apiKey).post(`${workflowPath}/deactivate`),
      api(other.apiKey).get(`${workflowPath}/runs`),
    ];
    for (const response of await Promise.all(attempts)) {
      expect({ status: response.status, body: response.body }).toEqual({ status: 404, body: { code: 'not_found', message: expect.any(String) } });
    }
    const borrowing = await api(other.apiKey).post('/v3/automations/workflows', { ...body, steps: [{ type: 'send_webhook', targetId: target.id, body: {} }] });
    expect(borrowing.status).toBe(400);
    expect((await api(other.apiKey).get('/v3/automations/webhook-targets')).body).toEqual({ targets: [], nextCursor: null });
    expect((await api(other.apiKey).get('/v3/automations/workflows')).body).toEqual({ workflows: [], nextCursor: null });
    await trigger(workflow.path, '{}').expect(202);
    expect((await api(owner.apiKey).get(workflowPath)).body.state).toBe('active');
  });

  it('refuses to delete a target a workflow uses, naming the workflow', async () => {
    if (skip) return;
    const { apiKey } = await sut.createAccount();
    const target = await createTarget(apiKey);
    const workflow = await activeWorkflow(apiKey, [{ type: 'send_webhook', targetId: target.id, body: {} }], 'Uses it');
    const refused = await api(apiKey).delete(`/v3/automations/webhook-targets/${target.id}`);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ code: 'invalid_parameter', message: expect.stringContaining(`${workflow.id} ("Uses it")`) });
    await api(apiKey).put(`/v3/automations/workflows/${workflow.id}`, { name: 'Uses it', trigger: { type: 'incoming_webhook' }, steps: [{ type: 'delay', seconds: 1 }] }).expect(200);
    await api(apiKey).delete(`/v3/automations/webhook-targets/${target.id}`).expect(204);
  });

  it('lets either a target delete or a workflow naming that target win a race, never both', async () => {
    if (skip) return;
    const { apiKey } = await sut.createAccount();
    const winners: string[] = [];
    for (let i = 0; i < 12; i++) {
      const target = await createTarget(apiKey);
      const steps = [{ type: 'send_webhook', targetId: target.id, body: {} }];
      const [deleted, created] = await Promise.all([
        api(apiKey).delete(`/v3/automations/webhook-targets/${target.id}`),
        api(apiKey).post('/v3/automations/workflows', { name: `race ${i}`, trigger: { type: 'incoming_webhook' }, steps }),
      ]);
      const remaining = await api(apiKey).get(`/v3/automations/webhook-targets/${target.id}`);
      if (created.status === 201) {
        winners.push('workflow');
        expect({ deleted: deleted.status, code: deleted.body.code, target: remaining.status }).toEqual({ deleted: 400, code: 'invalid_parameter', target: 200 });
      } else {
        winners.push('delete');
        expect({ deleted: deleted.status, created: created.status, code: created.body.code, target: remaining.status }).toEqual({ deleted: 204, created: 400, code: 'invalid_parameter', target: 404 });
      }
    }
    expect(winners).toHaveLength(12);
  });

  it('rate-limits each trigger URL on its own with 429 and Retry-After', async () => {
    if (skip) return;
    const { apiKey } = await sut.createAccount();
    const flooded = await activeWorkflow(apiKey, [{ type: 'delay', seconds: 86_400 }]);
    const quiet = await activeWorkflow(apiKey, [{ type: 'delay', seconds: 86_400 }]);
    const { burst, perSecond } = sut.app.get(IncomingTriggerSettings).rateLimit;
    const started = Date.now();
    const responses = await Promise.all(Array.from({ length: burst * 2 }, () => trigger(flooded.path, '{}')));
    const refilled = Math.ceil(((Date.now() - started) / 1000) * perSecond);
    const limited = responses.filter((r) => r.status === 429);
    expect(responses.every((r) => r.status === 202 || r.status === 429)).toBe(true);
    expect(limited.length).toBeGreaterThanOrEqual(Math.max(1, burst - refilled));
    expect(limited[0].body).toEqual({ code: 'rate_limited', message: expect.any(String) });
    expect(Number(limited[0].headers['retry-after'])).toBeGreaterThanOrEqual(1);
    await trigger(quiet.path, '{}').expect(202);
  });

  it('documents every automations route and POST /hooks/{token}', async () => {
    if (skip) return;
    const docs = await sut.http().get('/docs/json').expect(200);
    expect(Object.keys(docs.body.paths)).toEqual(
      expect.arrayContaining([
        '/v3/automations/webhook-targets',
        '/v3/automations/webhook-targets/{id}',
        '/v3/automations/workflows',
        '/v3/automations/workflows/{id}',
        '/v3/automations/workflows/{id}/activate',
        '/v3/automations/workflows/{id}/deactivate',
        '/v3/automations/workflows/{id}/runs',
        '/hooks/{token}',
      ]),
    );
    expect(Object.keys(docs.body.paths['/hooks/{token}'].post.responses)).toEqual(expect.arrayContaining(['202', '400', '404', '413', '415', '429']));
  });

  it('keeps a delayed run across a restart: the wait is a durable queue item', async () => {
    if (skip) return;
    const shared = await sharedStorage(profile);
    const first = await startTestApp(profile, { env: shared.env });
    let firstOpen = true;
    let second: TestApp | undefined;
    try {
      const { apiKey } = await first.createAccount();
      const target = await first.http().post('/v3/automations/webhook-targets').set('api-key', apiKey).send({ name: 'r', url: receiver.url + newPath() }).expect(201);
      const created = await first.http().post('/v3/automations/workflows').set('api-key', apiKey).send({
        name: 'Delayed',
        trigger: { type: 'incoming_webhook' },
        steps: [{ type: 'delay', seconds: 3 }, { type: 'send_webhook', targetId: target.body.id, body: { run: '{{ run.id }}' } }],
      });
      const activated = await first.http().post(`/v3/automations/workflows/${created.body.id}/activate`).set('api-key', apiKey).expect(200);
      const triggeredAt = Date.now();
      const { runId } = (await first.http().post(new URL(activated.body.triggerUrl).pathname).set('content-type', 'application/json').send('{}').expect(202)).body;
      // A leading delay starts with the run: the run was stored waiting for its first queue item
      // (seq 0, due in 3 s), committed before the 202.
      const db = first.app.get(TypeormDatabase);
      const [stored] = await db.query<{ seq: number; next_at: number }>('SELECT seq, next_at FROM automation_runs WHERE id = ?', [runId]);
      expect(Number(stored.seq)).toBe(0);
      expect(Number(stored.next_at)).toBeGreaterThanOrEqual(triggeredAt + 3000);
      await first.close();
      firstOpen = false;

      second = await startTestApp(profile, { env: shared.env });
      const targetPath = new URL(target.body.url).pathname;
      const [call] = await eventually(() => {
        const calls = receiver.requestsTo(targetPath);
        expect(calls).toHaveLength(1);
        return calls;
      }, 20_000);
      expect(JSON.parse(call.body)).toEqual({ run: runId });
      expect(call.at - triggeredAt).toBeGreaterThanOrEqual(3000);
      await eventually(async () => {
        const runs = await second!.http().get(`/v3/automations/workflows/${created.body.id}/runs`).set('api-key', apiKey).expect(200);
        expect(runs.body.runs[0]).toMatchObject({ id: runId, status: 'succeeded', steps: [{ type: 'delay', status: 'succeeded' }, { type: 'send_webhook', status: 'succeeded' }] });
      });
    } finally {
      await second?.close();
      if (firstOpen) await first.close();
      await shared.drop();
    }
  });

  it('re-queues a running run whose queue item was lost, and the run completes (RunSweeper)', async () => {
    if (skip) return;
    const app = await startTestApp(profile, { env: { DELIVERY_SWEEP_INTERVAL: '250ms', DELIVERY_SWEEP_AFTER: '1s' } });
    try {
      const { apiKey } = await app.createAccount();
      const target = await app.http().post('/v3/automations/webhook-targets').set('api-key', apiKey).send({ name: 'r', url: receiver.url + newPath() }).expect(201);
      const created = await app.http().post('/v3/automations/workflows').set('api-key', apiKey).send({
        name: 'Lost item',
        trigger: { type: 'incoming_webhook' },
        steps: [{ type: 'delay', seconds: 2 }, { type: 'send_webhook', targetId: target.body.id, body: { run: '{{ run.id }}' } }],
      });
      const activated = await app.http().post(`/v3/automations/workflows/${created.body.id}/activate`).set('api-key', apiKey).expect(200);
      const { runId } = (await app.http().post(new URL(activated.body.triggerUrl).pathname).set('content-type', 'application/json').send('{}').expect(202)).body;
      const db = app.app.get(TypeormDatabase);
      const run = async () => (await db.query<{ seq: number; status: string; next_at: number | null }>('SELECT seq, status, next_at FROM automation_runs WHERE id = ?', [runId]))[0];
      // A leading delay starts with the run: it waits for its item at seq 0, due in 2 s, a row of the
      // queue's table (work_items; with NATS, delayed items wait in the outbox). The item is lost.
      expect(await run()).toMatchObject({ seq: 0, status: 'running' });
      expect(Number((await run()).next_at)).toBeGreaterThan(Date.now());
      const table = profile === 'sqlite' ? 'work_items' : 'outbox';
      const { affected } = await db.exec(`DELETE FROM ${table} WHERE payload = ?`, [JSON.stringify({ runId, seq: 0 })]);
      expect(affected).toBe(1);

      const targetPath = new URL(target.body.url).pathname;
      const [call] = await eventually(() => {
        const calls = receiver.requestsTo(targetPath);
        expect(calls).toHaveLength(1);
        return calls;
      }, 20_000);
      expect(JSON.parse(call.body)).toEqual({ run: runId });
      await eventually(async () => {
        const runs = await app.http().get(`/v3/automations/workflows/${created.body.id}/runs`).set('api-key', apiKey).expect(200);
        expect(runs.body.runs[0]).toMatchObject({ id: runId, status: 'succeeded', steps: [{ type: 'delay', status: 'succeeded' }, { type: 'send_webhook', status: 'succeeded' }] });
      });
      // seq 0 -> 1 by the sweeper, then 2 and 3 by the two steps; nothing left due.
      expect(await run()).toMatchObject({ status: 'succeeded', next_at: null });
      expect(Number((await run()).seq)).toBe(3);
      expect(receiver.requestsTo(targetPath)).toHaveLength(1);
    } finally {
      await app.close();
    }
  });

  it('lists runs newest first, in pages by limit and cursor', async () => {
    if (skip) return;
    const { apiKey } = await sut.createAccount();
    const workflow = await activeWorkflow(apiKey, [{ type: 'delay', seconds: 86_400 }]);
    for (let i = 0; i < 3; i++) {
      await trigger(workflow.path, JSON.stringify({ i })).expect(202);
      await sleep(5);
    }
    const limited = await api(apiKey).get(`/v3/automations/workflows/${workflow.id}/runs?limit=2`);
    expect(limited.body.runs.map((r: { trigger: { body: unknown } }) => r.trigger.body)).toEqual([{ i: 2 }, { i: 1 }]);
    expect(limited.body.runs[0].steps).toEqual([{ type: 'delay', status: 'running', attempts: [] }]);
    expect(limited.body.nextCursor).toEqual(expect.any(String));
    const older = await api(apiKey).get(`/v3/automations/workflows/${workflow.id}/runs?limit=2&cursor=${limited.body.nextCursor}`).expect(200);
    expect(older.body.runs.map((r: { trigger: { body: unknown } }) => r.trigger.body)).toEqual([{ i: 0 }]);
    expect(older.body.nextCursor).toBeNull();
    const garbled = await api(apiKey).get(`/v3/automations/workflows/${workflow.id}/runs?cursor=abc`).expect(400);
    expect(garbled.body).toEqual({ code: 'invalid_parameter', message: 'cursor is not a cursor this list returned' });
    for (const limit of ['0', 'abc', '1.5']) {
      const refused = await api(apiKey).get(`/v3/automations/workflows/${workflow.id}/runs?limit=${limit}`).expect(400);
      expect(refused.body).toEqual({ code: 'invalid_parameter', message: 'limit must be an integer from 1 to 100' });
    }
    await api(apiKey).get(`/v3/automations/workflows/${workflow.id}/runs?limit=101`).expect(400);
  });

  it('stores concurrent trigger calls in shared transactions: every call answered 202, every body kept as sent', async () => {
    if (skip) return;
    const { apiKey } = await sut.createAccount();
    // 4 workflows (each URL has its own rate limit) x 5 calls of ~200 KB: more than one 4 MB statement
    const workflows = await Promise.all([0, 1, 2, 3].map((n) => activeWorkflow(apiKey, [{ type: 'delay', seconds: 86_400 }], `Flow ${n}`)));
    const calls = workflows.flatMap((workflow, w) => [0, 1, 2, 3, 4].map((c) => ({ workflow, body: JSON.stringify({ w, c, pad: 'x'.repeat(200_000 + c) }) })));
    const answers = await Promise.all(calls.map(({ workflow, body }) => trigger(workflow.path, body)));
    expect(answers.map((answer) => answer.status)).toEqual(calls.map(() => 202));
    for (const workflow of workflows) {
      const stored = new Map((await runsOf(apiKey, workflow.id)).map((run) => [run.id, JSON.stringify(run.trigger.body)]));
      const sent = calls.flatMap((call, i) => (call.workflow === workflow ? [[answers[i].body.runId as string, call.body]] : []));
      expect(sent).toHaveLength(5);
      for (const [runId, body] of sent) expect(stored.get(runId)).toBe(body);
    }
  });
});

/** A database two app instances can share, one after the other (the same queue prefix on NATS). */
async function sharedStorage(profile: Profile): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  if (profile === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'wh-restart-'));
    return { env: { SQLITE_PATH: join(dir, 'service.db') }, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const database = await createMysqlDatabase('wh_restart');
  const natsPrefix = `e2e_restart_${randomBytes(4).toString('hex')}`;
  // A test app deletes only the stream of a prefix it made itself: this one goes with the database.
  const drop = async () => {
    await database.drop();
    await deleteTestStream(natsPrefix);
  };
  return { env: { DATABASE_URL: database.url, NATS_PREFIX: natsPrefix }, drop };
}
