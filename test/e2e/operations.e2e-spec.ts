import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../support/eventually';
import { sleep } from '../support/waiting';
import { RunningProcess, startProcess, waitForOutput } from '../support/processes';
import { deliveredData, profileSuite } from '../support/profile-suite';
import { Receiver, startReceiver } from '../support/receiver';
import { PROFILES } from '../support/test-app';
import { randomListenPort } from '../support/ports';

const delivered = deliveredData();

/** The value of one series in a Prometheus text exposition, or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe.each(PROFILES)('operations: delivery metrics (%s)', (profile) => {
  const suite = profileSuite(profile, { env: { DELIVERY_RETRY_SCHEDULE: '1h', DELIVERY_TIMEOUT_MS: '2000', WEBHOOK_DISABLE_AFTER: '1' } });
  const { get, post, internal } = suite;

  it('counts attempts by outcome, times them, and reports queue, delivery and webhook gauges', async () => {
    if (suite.skip) return;
    const account = await suite.sut.createAccount();
    const create = (path: string) =>
      post(account, '/v3/Webhook', { url: `${suite.receiver.url}${path}`, events: ['email.delivered'] }).expect(201);
    const good = (await create('/ok')).body.id as string;
    const bad = (await create('/fail')).body.id as string;
    suite.receiver.respond((request) => (request.path === '/fail' ? { status: 503 } : { status: 200 }));

    await internal('/internal/events', { accountId: account.id, type: 'email.delivered', data: delivered }).expect(202);
    await eventually(async () => {
      for (const id of [good, bad]) {
        const deliveries = (await get(account, `/v3/Webhook/${id}/deliveries`).expect(200)).body.deliveries;
        expect(deliveries[0]?.attempts).toHaveLength(1);
      }
    }, 10_000);

    const text = await eventually(async () => {
      const response = await suite.sut.http().get('/metrics').expect(200);
      expect(sample(response.text, 'webhooks_disabled')).toBe(1);
      return response.text;
    });
    expect(sample(text, 'webhook_delivery_attempts_total{outcome="succeeded",reason="2xx"}')).toBe(1);
    expect(sample(text, 'webhook_delivery_attempts_total{outcome="failed",reason="5xx"}')).toBe(1);
    expect(sample(text, 'webhook_delivery_attempt_duration_seconds_count{outcome="succeeded"}')).toBe(1);
    expect(sample(text, 'webhook_delivery_attempt_duration_seconds_count{outcome="failed"}')).toBe(1);
    expect(text).toContain('webhook_delivery_attempt_duration_seconds_bucket{le="0.5",outcome="succeeded"}');
    // The failed one's webhook was disabled at once (WEBHOOK_DISABLE_AFTER=1): nothing waits.
    expect(sample(text, 'webhook_deliveries_waiting{status="pending"}')).toBe(0);
    expect(sample(text, 'webhook_deliveries_waiting{status="retrying"}')).toBe(0);
    expect(sample(text, 'webhook_deliveries_oldest_due_age_seconds')).toBe(0);
    expect(sample(text, 'outbox_backlog_items')).toEqual(expect.any(Number));
    expect(text).toMatch(/^# TYPE work_queue_items gauge$/m);
    expect(text).toMatch(/^# TYPE work_queue_oldest_due_age_seconds gauge$/m);
  });
});

describe('operations: processes (sqlite)', () => {
  let dir: string;
  let receiver: Receiver;
  const running: RunningProcess[] = [];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wh-ops-'));
    receiver = await startReceiver();
  });
  afterAll(async () => {
    for (const p of running) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const port = () => String(randomListenPort());
  const env = (extra: Record<string, string> = {}) => ({
    SQLITE_PATH: join(dir, 'service.db'),
    LOG_LEVEL: 'info',
    ADMIN_TOKEN: 'ops-test-admin-token-0123456789',
    INTERNAL_TOKEN: 'ops-test-internal-token-0123456789',
    SECRETS_KEY: '0'.repeat(64),
    ALLOW_PRIVATE_TARGETS: 'true',
    DELIVERY_RETRY_SCHEDULE: '200ms,200ms,200ms',
    DELIVERY_TIMEOUT_MS: '5000',
    ...extra,
  });
  const start = async (entry: string, extra: Record<string, string>, ready: RegExp) => {
    const p = startProcess(entry, env(extra));
    running.push(p);
    await waitForOutput(p, ready);
    return p;
  };

  /**
   * Starts API + dispatcher in one process, publishes one event whose receiver answers after 2 s,
   * sends SIGTERM during that call, restarts on the same database and waits for the delivery.
   * Returns how many times the receiver got the event, and what /ready answered just after the signal.
   */
  const deliverAcrossRestart = async (extra: Record<string, string>, waitMs: number): Promise<{ received: number; readyWhileStopping: { status: number; body: unknown } | null }> => {
    const apiPort = port();
    const base = `http://127.0.0.1:${apiPort}`;
    const sqlite = { SQLITE_PATH: join(dir, `service-${apiPort}.db`), PORT: apiPort, ...extra };
    const first = await start('apps/api/src/main.js', sqlite, /api listening/);
    const json = (method: string, path: string, headers: Record<string, string>, body?: object) =>
      fetch(base + path, { method, headers: { 'content-type': 'application/json', ...headers }, body: body && JSON.stringify(body) });
    const admin = { authorization: `Bearer ${env().ADMIN_TOKEN}` };
    const account = (await (await json('POST', '/admin/accounts', admin, { name: 'Acme' })).json()) as { id: number; apiKey: string };
    const path = `/slow-${apiPort}`;
    const webhook = (await (await json('POST', '/v3/Webhook', { 'api-key': account.apiKey }, { url: `${receiver.url}${path}`, events: ['email.delivered'] })).json()) as { id: string };
    receiver.respond({ status: 200, delayMs: 2000 });
    const published = await json('POST', '/internal/events', { authorization: `Bearer ${env().INTERNAL_TOKEN}` }, { accountId: account.id, type: 'email.delivered', data: delivered });
    expect(published.status).toBe(202);
    const { id: eventId } = (await published.json()) as { id: string };

    await eventually(() => expect(receiver.requestsTo(path).length).toBeGreaterThan(0), 10_000);
    first.child.kill('SIGTERM');
    await sleep(100);
    const readyWhileStopping = await fetch(`${base}/ready`).then(
      async (response) => ({ status: response.status, body: await response.json() }),
      () => null,
    );
    const exit = await first.exited;
    expect(exit.code === 0 || exit.signal === 'SIGTERM').toBe(true);

    // Restart: whatever was finished stays finished, whatever was released is delivered now.
    receiver.respond({ status: 200 });
    const second = await start('apps/api/src/main.js', sqlite, /api listening/);
    await eventually(async () => {
      const response = await fetch(`${base}/v3/Webhook/${webhook.id}/deliveries`, { headers: { 'api-key': account.apiKey } });
      const [found] = ((await response.json()) as { deliveries: Array<{ eventId: string; status: string }> }).deliveries;
      expect(found).toMatchObject({ eventId, status: 'succeeded' });
    }, waitMs);
    second.child.kill('SIGTERM');
    await second.exited;
    return { received: receiver.requestsTo(path).filter((r) => r.headers['x-service-event-id'] === eventId).length, readyWhileStopping };
  };

  /**
   * API + dispatcher in one process on a database of its own, with `count` events waiting behind a
   * receiver that answers after `delayMs`, two calls at a time (DISPATCHER_ORIGIN_CONCURRENCY=2).
   */
  const backlogBehindSlowReceiver = async (name: string, extra: Record<string, string>, count: number, delayMs: number) => {
    const apiPort = port();
    const base = `http://127.0.0.1:${apiPort}`;
    const settings = { SQLITE_PATH: join(dir, `${name}-${apiPort}.db`), PORT: apiPort, DISPATCHER_ORIGIN_CONCURRENCY: '2', ...extra };
    const first = await start('apps/api/src/main.js', settings, /api listening/);
    const json = async (method: string, path: string, headers: Record<string, string>, body?: object) =>
      (await fetch(base + path, { method, headers: { 'content-type': 'application/json', ...headers }, body: body && JSON.stringify(body) })).json();
    const account = (await json('POST', '/admin/accounts', { authorization: `Bearer ${env().ADMIN_TOKEN}` }, { name: 'Acme' })) as { id: number; apiKey: string };
    const path = `/${name}-${apiPort}`;
    const webhook = (await json('POST', '/v3/Webhook', { 'api-key': account.apiKey }, { url: `${receiver.url}${path}`, events: ['email.delivered'] })) as { id: string };
    receiver.respond((request) => (request.path === path ? { status: 200, delayMs } : { status: 200 }));
    const events = Array.from({ length: count }, (_, i) => ({ accountId: account.id, type: 'email.delivered', data: { ...delivered, idSending: i + 1 } }));
    if (count > 0) await json('POST', '/internal/events/batch', { authorization: `Bearer ${env().INTERNAL_TOKEN}` }, { events });
    return { first, settings, json, account, path, webhook };
  };

  it('SIGTERM during a slow delivery lets it finish within the grace period: delivered exactly once', async () => {
    const { received, readyWhileStopping } = await deliverAcrossRestart({ SHUTDOWN_GRACE_MS: '10s' }, 20_000);
    expect(received).toBe(1);
    // A balancer polling /ready stops sending during the grace; the call under way still finishes.
    expect(readyWhileStopping).toEqual({
      status: 503,
      body: { code: 'unavailable', message: 'the process is stopping: it takes no new work', status: 'stopping', storage: 'up', queue: 'up' },
    });
  }, 60_000);

  it('SIGTERM with a grace period shorter than the call releases the queue item, and the event is still delivered', async () => {
    // The queue item is released after 200 ms while the call is still out; either the attempt is
    // recorded before the database closes, or its claim runs out (timeout + 30 s) and the released
    // item makes it again after the restart: at least once, never zero times.
    expect((await deliverAcrossRestart({ SHUTDOWN_GRACE_MS: '200ms', DELIVERY_TIMEOUT_MS: '2500' }, 60_000)).received).toBeGreaterThanOrEqual(1);
  }, 90_000);

  it('SIGTERM with deliveries waiting in their lane: none is attempted after the release, the webhook stays enabled, all are delivered after a restart', async () => {
    const { first, settings, json, account, path, webhook } = await backlogBehindSlowReceiver('lanes', { SHUTDOWN_GRACE_MS: '300ms', WEBHOOK_DISABLE_AFTER: '3' }, 40, 400);

    await eventually(() => expect(receiver.requestsTo(path).length).toBeGreaterThanOrEqual(2), 10_000);
    first.child.kill('SIGTERM');
    await first.exited;

    receiver.respond({ status: 200 });
    const second = await start('apps/api/src/main.js', settings, /api listening/);
    const deliveries = async () =>
      ((await json('GET', `/v3/Webhook/${webhook.id}/deliveries?limit=100`, { 'api-key': account.apiKey })) as { deliveries: Array<{ status: string; attempts: Array<{ error: string | null }> }> }).deliveries;
    await eventually(async () => expect((await deliveries()).map((d) => d.status)).toEqual(Array(40).fill('succeeded')), 60_000);
    // The calls the shutdown never made are not failed attempts: none is recorded, nothing counted against the receiver.
    expect((await deliveries()).flatMap((d) => d.attempts).filter((a) => a.error !== null)).toEqual([]);
    expect(await json('GET', `/v3/Webhook/${webhook.id}`, { 'api-key': account.apiKey })).toMatchObject({ state: 'enabled', consecutiveFailures: 0 });
    second.child.kill('SIGTERM');
    await second.exited;
  }, 90_000);

  it('SIGTERM starts no new call: with a long grace, only the calls under way finish, then the process exits and a restart delivers the rest', async () => {
    const { first, settings, json, account, path, webhook } = await backlogBehindSlowReceiver('drain', { SHUTDOWN_GRACE_MS: '10s' }, 20, 1_000);

    await eventually(() => expect(receiver.requestsTo(path).length).toBeGreaterThanOrEqual(2), 10_000);
    const signalledAt = Date.now();
    first.child.kill('SIGTERM');
    await first.exited;
    const exitedAfter = Date.now() - signalledAt;
    // The two calls under way (1 s each) finish; none started after the signal, so the grace is not used up.
    expect(receiver.requestsTo(path).filter((r) => r.at > signalledAt + 100)).toEqual([]);
    expect(exitedAfter).toBeLessThan(5_000);

    receiver.respond({ status: 200 });
    const second = await start('apps/api/src/main.js', settings, /api listening/);
    const deliveries = async () =>
      ((await json('GET', `/v3/Webhook/${webhook.id}/deliveries?limit=100`, { 'api-key': account.apiKey })) as { deliveries: Array<{ status: string }> }).deliveries;
    await eventually(async () => expect((await deliveries()).map((d) => d.status)).toEqual(Array(20).fill('succeeded')), 60_000);
    second.child.kill('SIGTERM');
    await second.exited;
  }, 90_000);

  it("SIGTERM hands back deliveries waiting out a receiver's Retry-After at once, and a restart delivers them when the pause ends", async () => {
    const { first, settings, json, account, path, webhook } = await backlogBehindSlowReceiver('paused', { SHUTDOWN_GRACE_MS: '20s' }, 0, 0);
    receiver.respond((request) => (request.path === path ? { status: 429, headers: { 'retry-after': '8' } } : { status: 200 }));
    const publish = (count: number) =>
      json('POST', '/internal/events/batch', { authorization: `Bearer ${env().INTERNAL_TOKEN}` }, {
        events: Array.from({ length: count }, (_, i) => ({ accountId: account.id, type: 'email.delivered', data: { ...delivered, idSending: 100 + i } })),
      });
    await publish(1);
    const deliveries = async () =>
      ((await json('GET', `/v3/Webhook/${webhook.id}/deliveries?limit=100`, { 'api-key': account.apiKey })) as { deliveries: Array<{ status: string; attempts: unknown[] }> }).deliveries;
    await eventually(async () => expect((await deliveries()).flatMap((d) => d.attempts)).toHaveLength(1), 10_000);
    await publish(5);
    await sleep(500);
    const signalledAt = Date.now();
    first.child.kill('SIGTERM');
    expect((await first.exited).code).toBe(0);
    // Nothing was under way: the process need not wait for the pause, nor for the grace.
    expect(Date.now() - signalledAt).toBeLessThan(4_000);
    expect(receiver.requestsTo(path)).toHaveLength(1);

    receiver.respond({ status: 200 });
    const second = await start('apps/api/src/main.js', settings, /api listening/);
    await eventually(async () => expect((await deliveries()).map((d) => d.status)).toEqual(Array(6).fill('succeeded')), 60_000);
    second.child.kill('SIGTERM');
    await second.exited;
  }, 90_000);

  it('kill -9 during intake and delivery: after a restart on the same file every event answered 202 is delivered', async () => {
    // Commits wait for their WAL sync off the event loop (WalSync): a process killed at any point
    // keeps every commit it answered for (the OS holds the WAL), and the work it had in hand returns.
    const { first, settings, path, account } = await backlogBehindSlowReceiver('kill', {}, 0, 0);
    receiver.respond({ status: 200 });
    const base = `http://127.0.0.1:${settings.PORT}`;
    const answered: string[] = [];
    let stop = false;
    const producer = async (n: number) => {
      for (let i = 0; !stop; i++) {
        const response = await fetch(`${base}/internal/events`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${env().INTERNAL_TOKEN}` },
          body: JSON.stringify({ accountId: account.id, type: 'email.delivered', data: { ...delivered, idSending: n * 100_000 + i } }),
        }).catch(() => null);
        if (!response) return;
        if (response.status === 202) answered.push(((await response.json().catch(() => ({}))) as { id?: string }).id ?? 'unreadable');
      }
    };
    const producers = Array.from({ length: 8 }, (_, n) => producer(n));
    await eventually(() => expect(receiver.requestsTo(path).length).toBeGreaterThan(100), 20_000);
    first.child.kill('SIGKILL');
    await first.exited;
    stop = true;
    await Promise.all(producers);
    expect(answered.length).toBeGreaterThan(100);
    expect(answered).not.toContain('unreadable');

    const second = await start('apps/api/src/main.js', settings, /api listening/);
    const deliveredIds = () => new Set(receiver.requestsTo(path).map((r) => r.headers['x-service-event-id']));
    // The calls in flight at the kill come back once their claims run out (DELIVERY_TIMEOUT_MS + 30 s).
    await eventually(() => expect(answered.filter((id) => !deliveredIds().has(id))).toEqual([]), 100_000);
    second.child.kill('SIGTERM');
    await second.exited;
  }, 180_000);

  it('the standalone dispatcher answers GET /metrics on its health port, delivery metrics included', async () => {
    const healthPort = port();
    const dispatcher = await start('apps/dispatcher/src/main.js', { DISPATCHER_HEALTH_PORT: healthPort }, /dispatcher started/);
    const response = await fetch(`http://127.0.0.1:${healthPort}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await response.text();
    expect(text).toMatch(/^# TYPE webhook_delivery_attempts_total counter$/m);
    expect(text).toMatch(/^# TYPE webhook_delivery_attempt_duration_seconds histogram$/m);
    expect(text).toMatch(/^webhooks_disabled \d+$/m);
    expect(text).toMatch(/^outbox_backlog_items \d+$/m);
    expect((await fetch(`http://127.0.0.1:${healthPort}/health`)).status).toBe(200);
    dispatcher.child.kill('SIGTERM');
    expect((await dispatcher.exited).code).toBe(0);
  });
});
