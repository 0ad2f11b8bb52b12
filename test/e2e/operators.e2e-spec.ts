import { randomBytes } from 'node:crypto';
import { AccountDeletion, AccountDeletionFinisher } from '../../libs/accounts/src';
import { WorkflowsService } from '../../libs/automations/src';
import { WebhooksService } from '../../libs/event-webhooks/src';
import { deliveryWorkItem } from '../../libs/event-webhooks/src/deliveries/delivery-work';
import { TypeormDatabase } from '../../libs/adapters/sql/src/typeorm-database';
import { WorkQueue } from '../../libs/kernel/src';
import { eventually } from '../support/eventually';
import { Receiver, startReceiver } from '../support/receiver';
import { Profile, PROFILES, profileAvailable, startTestApp, TestApp } from '../support/test-app';

const delivered = (idSending: number) => ({ email: 'jane@example.com', idSending, sendingType: 1, diagCode: '250 2.0.0 OK', deliveredAt: '2025-11-22T02:00:00.000Z' });

/** The account's rows in every table it owns (and the queue rows naming its deliveries and runs). */
async function rowsOf(db: TypeormDatabase, accountId: number): Promise<Record<string, number>> {
  const count = async (sql: string, params: unknown[]) => Number((await db.query<{ n: unknown }>(sql, params))[0].n);
  const out: Record<string, number> = { accounts: await count('SELECT COUNT(*) AS n FROM accounts WHERE id = ?', [accountId]) };
  for (const table of ['api_keys', 'webhooks', 'webhook_targets', 'workflows', 'workflow_targets', 'automation_runs', 'events', 'deliveries', 'delivery_attempts', 'sends']) {
    out[table] = await count(`SELECT COUNT(*) AS n FROM ${table} WHERE account_id = ?`, [accountId]);
  }
  return out;
}

async function queuedKeys(db: TypeormDatabase): Promise<string[]> {
  const rows = await db.query<{ k: string | null }>('SELECT dedup_key AS k FROM work_items UNION ALL SELECT dedup_key AS k FROM outbox');
  return rows.map((r) => r.k ?? '');
}

describe.each(PROFILES)('operators: accounts, keys, request ids (%s)', (profile: Profile) => {
  let sut: TestApp;
  let receiver: Receiver;
  let skip = false;

  beforeAll(async () => {
    skip = !(await profileAvailable(profile));
    if (skip) return;
    receiver = await startReceiver((request) => ({ status: request.path.startsWith('/failing') ? 500 : 200 }));
    // Failed deliveries wait an hour for their retry, so they are still queued when the account goes.
    sut = await startTestApp(profile, { env: { DELIVERY_RETRY_SCHEDULE: '1h', TARGET_RETRY_SCHEDULE: '1h' } });
  });
  afterAll(async () => {
    if (skip) return;
    await sut.close();
    await receiver.close();
  });

  const admin = () => `Bearer ${sut.tokens.admin}`;
  const adminGet = (path: string) => sut.http().get(path).set('authorization', admin());

  it('answers apiKeyId on create, reads an account, and 404s unknown ones', async () => {
    if (skip) return;
    const created = await sut.createAccount('Readable');
    expect(created).toEqual({ id: expect.any(Number), name: 'Readable', apiKey: expect.stringMatching(/^sk_/), apiKeyId: expect.stringMatching(/^key_/) });
    const read = await adminGet(`/admin/accounts/${created.id}`).expect(200);
    expect(read.body).toEqual({ id: created.id, name: 'Readable', createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/) });
    const lookalikes = [`${created.id}.0`, `0${created.id}`, `${created.id}%20`, `+${created.id}`, `${created.id}e0`].map((id) => `/admin/accounts/${id}`);
    for (const path of ['/admin/accounts/999999', '/admin/accounts/abc', '/admin/accounts/999999/api-keys', ...lookalikes]) {
      const response = await adminGet(path);
      expect({ path, status: response.status, body: response.body }).toEqual({ path, status: 404, body: { code: 'not_found', message: expect.any(String) } });
    }
    await sut.http().get('/admin/accounts').expect(401);
    await sut.http().get('/admin/accounts').set('authorization', `Bearer ${sut.tokens.internal}`).expect(401);
  });

  it('lists accounts oldest first, page by page', async () => {
    if (skip) return;
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push((await sut.createAccount(`Listed ${i}`)).id);
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { accounts: Array<{ id: number; name: string; createdAt: string }>; nextCursor: string | null } } = await adminGet(
        `/admin/accounts?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      ).expect(200);
      expect(page.body.accounts.length).toBeLessThanOrEqual(2);
      for (const account of page.body.accounts) expect(Object.keys(account).sort()).toEqual(['createdAt', 'id', 'name']);
      seen.push(...page.body.accounts.map((a) => a.id));
      cursor = page.body.nextCursor;
    } while (cursor !== null);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(seen).toEqual(expect.arrayContaining(ids));
    const all = await adminGet('/admin/accounts').expect(200);
    expect(all.body.nextCursor).toBeNull();
    for (const query of ['limit=0', 'limit=101', 'limit=x', 'cursor=abc']) {
      const response = await adminGet(`/admin/accounts?${query}`);
      expect({ query, status: response.status, code: response.body.code }).toEqual({ query, status: 400, code: 'invalid_parameter' });
    }
  });

  it('lists the keys not revoked with prefix and last use, never the key', async () => {
    if (skip) return;
    const account = await sut.createAccount('Keyed');
    const second = (await sut.http().post(`/admin/accounts/${account.id}/api-keys`).set('authorization', admin()).expect(201)).body;
    await sut.http().delete(`/admin/accounts/${account.id}/api-keys/${second.id}`).set('authorization', admin()).expect(204);
    const listed = await adminGet(`/admin/accounts/${account.id}/api-keys`).expect(200);
    expect(listed.body).toEqual({ apiKeys: [{ id: account.apiKeyId, prefix: account.apiKey.slice(0, 8), createdAt: expect.any(String), lastUsedAt: null }] });
    expect(JSON.stringify(listed.body)).not.toContain(account.apiKey);

    await sut.http().get('/v3/Webhook').set('api-key', account.apiKey).expect(200);
    const used = await eventually(async () => {
      const keys = (await adminGet(`/admin/accounts/${account.id}/api-keys`).expect(200)).body.apiKeys;
      expect(keys[0].lastUsedAt).not.toBeNull();
      return keys[0].lastUsedAt as string;
    });
    expect(Math.abs(Date.parse(used) - Date.now())).toBeLessThan(60_000);
  });

  it('deletes an account with everything it owns, cancels its waiting work, and refuses its key and trigger URL', async () => {
    if (skip) return;
    const doomed = await sut.createAccount('Doomed');
    const kept = await sut.createAccount('Kept');
    const as = (apiKey: string) => ({
      post: (path: string, body?: object) => sut.http().post(path).set('api-key', apiKey).send(body),
    });
    const publish = (accountId: number, idSending: number) =>
      sut.http().post('/internal/events').set('authorization', `Bearer ${sut.tokens.internal}`).send({ accountId, type: 'email.delivered', data: delivered(idSending) }).expect(202);

    await as(doomed.apiKey).post('/v3/Webhook', { url: `${receiver.url}/failing/${randomBytes(4).toString('hex')}`, events: ['email.delivered'] }).expect(201);
    await as(kept.apiKey).post('/v3/Webhook', { url: `${receiver.url}/ok/${randomBytes(4).toString('hex')}`, events: ['email.delivered'] }).expect(201);
    for (let i = 0; i < 3; i++) await publish(doomed.id, 100 + i);
    await publish(kept.id, 200);

    const target = (await as(doomed.apiKey).post('/v3/automations/webhook-targets', { name: 'T', url: `${receiver.url}/target` }).expect(201)).body;
    const workflow = (
      await as(doomed.apiKey)
        .post('/v3/automations/workflows', { name: 'Slow', trigger: { type: 'incoming_webhook' }, steps: [{ type: 'delay', seconds: 3600 }, { type: 'send_webhook', targetId: target.id, body: '{}' }] })
        .expect(201)
    ).body;
    const triggerUrl = new URL((await as(doomed.apiKey).post(`/v3/automations/workflows/${workflow.id}/activate`).expect(200)).body.triggerUrl).pathname;
    await sut.http().post(triggerUrl).send({ order: 1 }).expect(202);
    await sut.http().post('/internal/sends').set('authorization', `Bearer ${sut.tokens.internal}`).send({ accountId: doomed.id, email: 'jane@example.com', channel: 'api_v3' }).expect(201);

    const db = sut.app.get(TypeormDatabase);
    // Every delivery of the doomed account failed once and waits an hour in the queue.
    const deliveryIds = await eventually(async () => {
      const rows = await db.query<{ id: string; status: string; seq: number }>('SELECT id, status, seq FROM deliveries WHERE account_id = ?', [doomed.id]);
      expect(rows.map((r) => r.status)).toEqual(['retrying', 'retrying', 'retrying']);
      return rows;
    }, 15_000);
    const runIds = (await db.query<{ id: string }>('SELECT id FROM automation_runs WHERE account_id = ?', [doomed.id])).map((r) => r.id);
    expect(runIds).toHaveLength(1);
    const keptBefore = await rowsOf(db, kept.id);

    await sut.http().delete(`/admin/accounts/${doomed.id}`).set('authorization', admin()).expect(204);

    await adminGet(`/admin/accounts/${doomed.id}`).expect(404);
    await sut.http().delete(`/admin/accounts/${doomed.id}`).set('authorization', admin()).expect(404);
    await sut.http().get('/v3/Webhook').set('api-key', doomed.apiKey).expect(401);
    await sut.http().post(triggerUrl).send({ order: 2 }).expect(404);
    const nothingLeft = Object.fromEntries(Object.keys(await rowsOf(db, kept.id)).map((table) => [table, 0]));
    // The account's row stays, invisible, until the deletion is finished.
    expect(await rowsOf(db, doomed.id)).toEqual({ ...nothingLeft, accounts: 1 });

    // Requests another process authenticated from its key cache (up to 5 s) can still write after
    // the first passes: a webhook, and a workflow activated with a new trigger URL.
    await sut.app.get(WebhooksService).create(doomed.id, { url: `${receiver.url}/late`, events: ['email.delivered'] }, 'v3');
    const late = await sut.app.get(WorkflowsService).create(doomed.id, { name: 'Late', trigger: { type: 'incoming_webhook' }, steps: [{ type: 'delay', seconds: 60 }] });
    const lateTrigger = new URL((await sut.app.get(WorkflowsService).activate(doomed.id, late.id)).triggerUrl).pathname;
    await sut.http().post(lateTrigger).send({ order: 3 }).expect(404);
    expect(await sut.app.get(AccountDeletionFinisher).finish()).toBe(0);
    expect((await rowsOf(db, doomed.id)).webhooks).toBe(1);
    // The finish, once the grace has passed, deletes those rows and then the account's.
    expect(await sut.app.get(AccountDeletion).finishDeletions(new Date())).toBe(1);
    expect(await rowsOf(db, doomed.id)).toEqual(nothingLeft);
    const queued = await queuedKeys(db);
    for (const id of [...deliveryIds.map((d) => d.id), ...runIds]) expect(queued.filter((k) => k.startsWith(`${id}:`))).toEqual([]);
    expect(await rowsOf(db, kept.id)).toEqual(keptBefore);
    await sut.http().get('/v3/Webhook').set('api-key', kept.apiKey).expect(200);

    // Work that escaped the deletion (already handed to a worker, or in JetStream) is dropped quietly.
    const stale = deliveryIds[0];
    await sut.app.get(WorkQueue).enqueue([deliveryWorkItem(stale.id, stale.seq, new Date())]);
    const dropped = (line: string) => line.includes('"msg":"work item dropped"') && line.includes(`delivery ${stale.id} does not exist`);
    await eventually(() => expect(sut.logs.filter(dropped)).toHaveLength(1), 15_000);
    const errors = sut.logs.filter((line) => line.includes(stale.id) && /"level":"(error|fatal)"/.test(line));
    expect(errors).toEqual([]);
  });

  it('answers x-request-id on every response: the caller’s own when well-formed, else a new one, and logs it', async () => {
    if (skip) return;
    const own = `trace:${'a'.repeat(59)}.${'B'.repeat(58)}-1_2`;
    expect(own).toHaveLength(128);
    const echoed = await sut.http().get('/health').set('x-request-id', own).expect(200);
    expect(echoed.headers['x-request-id']).toBe(own);
    const line = sut.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.requestId === own && l.url === '/health');
    expect(line).toMatchObject({ requestId: own, status: 200 });

    for (const bad of ['x'.repeat(129), 'has space', 'slash/no', 'semi;colon']) {
      const response = await sut.http().get('/health').set('x-request-id', bad);
      expect(response.headers['x-request-id']).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
      expect(response.headers['x-request-id']).not.toBe(bad);
    }
    const fresh = await sut.http().get('/health');
    expect(fresh.headers['x-request-id']).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
    for (const response of [await sut.http().get('/nope'), await sut.http().get('/admin/accounts'), await sut.http().post('/admin/accounts').set('authorization', admin()).set('content-type', 'application/json').send('{"name":')]) {
      expect({ status: response.status, id: typeof response.headers['x-request-id'] }).toEqual({ status: response.status, id: 'string' });
    }
  });

  it('exports queue gauges at 0 when the queues are empty, and automation metrics', async () => {
    if (skip) return;
    const text = (await sut.http().get('/metrics').expect(200)).text;
    const table = profile === 'sqlite' ? 'work_items' : 'outbox';
    for (const topic of ['webhook-delivery', 'automation-step']) {
      expect(text).toMatch(new RegExp(`^work_queue_items\\{table="${table}",topic="${topic}"\\} \\d+$`, 'm'));
      expect(text).toMatch(new RegExp(`^work_queue_oldest_due_age_seconds\\{table="${table}",topic="${topic}"\\} `, 'm'));
    }
    expect(text).toMatch(/^automation_runs_finished_total\{status="failed"\} \d+$/m);
    expect(text).toContain('# TYPE webhook_target_calls_total counter');
  });
});

describe.each(PROFILES)('operators: METRICS_TOKEN (%s)', (profile: Profile) => {
  let sut: TestApp;
  let skip = false;
  const token = `metrics-${randomBytes(12).toString('hex')}`;

  beforeAll(async () => {
    skip = !(await profileAvailable(profile));
    if (!skip) sut = await startTestApp(profile, { env: { METRICS_TOKEN: token } });
  });
  afterAll(async () => {
    if (!skip) await sut.close();
  });

  it('answers /metrics 401 without the bearer token, and the metrics with it', async () => {
    if (skip) return;
    for (const authorization of [undefined, 'Bearer wrong-token-here', `Bearer ${sut.tokens.admin}`, token]) {
      const request = sut.http().get('/metrics');
      const response = await (authorization ? request.set('authorization', authorization) : request);
      expect({ authorization, status: response.status, body: response.body }).toEqual({ authorization, status: 401, body: { code: 'unauthorized', message: expect.any(String) } });
    }
    const ok = await sut.http().get('/metrics').set('authorization', `Bearer ${token}`).expect(200);
    expect(ok.text).toContain('http_requests_total');
    await sut.http().get('/health').expect(200);
  });
});
