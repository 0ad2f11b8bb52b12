import { TypeormDatabase } from '../../libs/adapters/sql/src/typeorm-database';
import { eventually } from '../support/eventually';
import { Receiver, startReceiver } from '../support/receiver';
import { PROFILES, profileAvailable, startTestApp, TestApp } from '../support/test-app';

/**
 * The delivery engine under load, per profile: producers racing on one database never get a 5xx
 * (deadlocks and lock waits are retried), and one account's slow or failing receiver never delays
 * another account's deliveries (lanes per origin, retries apart from first attempts).
 */
const ENV = { DELIVERY_TIMEOUT_MS: '5000', DELIVERY_RETRY_SCHEDULE: '200ms,200ms,200ms', WEBHOOK_DISABLE_AFTER: '1000000', DISPATCHER_ORIGIN_CONCURRENCY: '4' };
const DATA = { email: 'jane@example.com', idSending: 1, sendingType: 1, diagCode: '250 2.0.0 OK', deliveredAt: '2025-11-22T02:00:00.000Z' };

describe.each(PROFILES)('delivery engine (%s)', (profile) => {
  jest.setTimeout(120_000);
  let skip = false;
  const apps: TestApp[] = [];
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    skip = !(await profileAvailable(profile));
  });

  afterEach(async () => {
    for (const app of apps.splice(0).reverse()) await app.close();
    for (const r of receivers.splice(0)) await r.close();
  });

  const receiver = async (...args: Parameters<typeof startReceiver>) => {
    const r = await startReceiver(...args);
    receivers.push(r);
    return r;
  };
  const start = async (env: Record<string, string> = {}) => {
    const app = await startTestApp(profile, { env: { ...ENV, ...env } });
    apps.push(app);
    return app;
  };
  const subscribe = (app: TestApp, apiKey: string, url: string) =>
    app.http().post('/v3/Webhook').set('api-key', apiKey).send({ url, events: ['email.delivered'] }).expect(201);
  const publish = (app: TestApp, accountId: number) =>
    app.http().post('/internal/events').set('authorization', `Bearer ${app.tokens.internal}`).send({ accountId, type: 'email.delivered', data: DATA });
  const eventIdOf = (body: string) => (JSON.parse(body) as { id: string }).id;

  it('two API processes racing on one database answer every event 202, and deliver each once', async () => {
    if (skip) return;
    const first = await start();
    // A second process of the same installation: same database, same queue, same tokens.
    const shared = { ADMIN_TOKEN: first.tokens.admin, INTERNAL_TOKEN: first.tokens.internal };
    const second =
      profile === 'sqlite'
        ? await start({ ...shared, SQLITE_PATH: first.config.storage.sqlitePath })
        : await start({ ...shared, DATABASE_URL: first.config.storage.databaseUrl!, NATS_PREFIX: first.config.queue.natsPrefix });
    const r = await receiver();
    const account = await first.createAccount();
    await subscribe(first, account.apiKey, `${r.url}/a`);
    await subscribe(first, account.apiKey, `${r.url}/b`);

    const perProducer = 300;
    const statuses: number[] = [];
    const producer = async (app: TestApp) => {
      for (let i = 0; i < perProducer; i += 30) {
        const answers = await Promise.all(Array.from({ length: 30 }, () => publish(app, account.id)));
        statuses.push(...answers.map((a) => a.status));
      }
    };
    await Promise.all([producer(first), producer(second)]);
    expect(statuses.filter((s) => s !== 202)).toEqual([]);

    await eventually(() => expect(r.requests.length).toBeGreaterThanOrEqual(2 * 2 * perProducer), 60_000);
    const delivered = r.requests.map((q) => `${q.path} ${eventIdOf(q.body)}`);
    expect(new Set(delivered).size).toBe(2 * 2 * perProducer);
  });

  it('keeps another account fast while one account has a backlog at a receiver answering in 2 s', async () => {
    if (skip) return;
    const app = await start();
    const slow = await receiver({ delayMs: 2_000 });
    const fast = await receiver();
    const slowAccount = await app.createAccount('Slow');
    const fastAccount = await app.createAccount('Fast');
    await subscribe(app, slowAccount.apiKey, `${slow.url}/in`);
    await subscribe(app, fastAccount.apiKey, `${fast.url}/in`);

    const backlog = await Promise.all(Array.from({ length: 100 }, () => publish(app, slowAccount.id)));
    expect(backlog.every((a) => a.status === 202)).toBe(true);
    expectUndelayed(await timedDeliveries(app, fast, fastAccount.id, 20));
    // the slow receiver has been served all along, 4 at a time (its lane)
    expect(slow.requests.length).toBeLessThan(100);
  });

  it("keeps another account fast when one account's backlog at a slow receiver is larger than the items a dispatcher holds, and still delivers that backlog once", async () => {
    if (skip) return;
    // 4 calls at a time (64 items held at most); the slow receiver answers in 1 s: 4 calls per second.
    const app = await start({ DISPATCHER_CONCURRENCY: '4' });
    const slow = await receiver({ delayMs: 1_000 });
    const fast = await receiver();
    const slowAccount = await app.createAccount('Slow');
    const fastAccount = await app.createAccount('Fast');
    await subscribe(app, slowAccount.apiKey, `${slow.url}/in`);
    await subscribe(app, fastAccount.apiKey, `${fast.url}/in`);

    const backlog = 100;
    const answers = await Promise.all(Array.from({ length: backlog }, () => publish(app, slowAccount.id)));
    expect(answers.every((a) => a.status === 202)).toBe(true);
    // Calls parked longer than a second, beyond the 5 s their line starts, go back to the queue.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    // Oldest first, the queue would hand out the other account's items once the backlog fell under 64: some 10 s.
    expectUndelayed(await timedDeliveries(app, fast, fastAccount.id, 10));
    await eventually(() => expect(slow.requests.length).toBeGreaterThanOrEqual(backlog), 90_000, 200);
    expect(new Set(slow.requests.map((q) => eventIdOf(q.body))).size).toBe(slow.requests.length);
    // none of it was taken for lost: the deliveries said when their items were due
    await eventually(async () => {
      const [row] = await app.app.get(TypeormDatabase).query<{ n: number | string }>("SELECT COUNT(*) AS n FROM deliveries WHERE status = 'succeeded'");
      expect(Number(row.n)).toBe(backlog + 10);
    }, 10_000);
    const metrics = await app.http().get('/metrics').expect(200);
    expect(Number(/^webhook_deliveries_deferred_total (\d+)/m.exec(metrics.text)?.[1])).toBeGreaterThan(0);
  });

  it('never takes a delivery waiting its turn in the queue behind a backlog for one that lost its item', async () => {
    if (skip) return;
    // 4 calls at a time at a receiver answering in 100 ms (not slow enough to be sent back): 40 a second,
    // so most of 900 deliveries wait in the queue for seconds beyond DELIVERY_SWEEP_AFTER. Out of the
    // queue, the 64 items in the dispatcher's hands wait for their call, unclaimed: 1.6 s at 100 ms a
    // call (on NATS, a message of 32 items is the queue's head up to 0.8 s more), and more when claims
    // and records are slow (6 s was too short on a CI machine that ran this file in twice its usual
    // time): the sweep waits longer than that.
    const app = await start({ DISPATCHER_CONCURRENCY: '4', DELIVERY_SWEEP_AFTER: '10s', DELIVERY_SWEEP_INTERVAL: '200ms' });
    const paced = await receiver({ delayMs: 100 });
    const account = await app.createAccount('Backlog');
    await subscribe(app, account.apiKey, `${paced.url}/in`);
    const backlog = 900;
    const answers = await Promise.all(Array.from({ length: backlog }, () => publish(app, account.id)));
    expect(answers.every((a) => a.status === 202)).toBe(true);
    await eventually(() => expect(paced.requests.length).toBeGreaterThanOrEqual(backlog), 90_000, 200);
    expect(new Set(paced.requests.map((q) => eventIdOf(q.body))).size).toBe(backlog);
    // Each recorded attempt bumps seq once, and so does a sweep: a delivery the sweeper re-queued has
    // a seq above its attempt count. (A retry, after a call this process's receiver was too busy to
    // answer in time, is not a sweep.)
    const db = app.app.get(TypeormDatabase);
    await eventually(async () => {
      const [row] = await db.query<{ n: number | string; swept: number | string }>(
        "SELECT COUNT(*) AS n, SUM(CASE WHEN seq > attempt_count THEN 1 ELSE 0 END) AS swept FROM deliveries WHERE status = 'succeeded' AND account_id = ?",
        [account.id],
      );
      expect([Number(row.n), Number(row.swept)]).toEqual([backlog, 0]);
    }, 10_000);
  });

  it("serves another account at a receiver host it shares with an account whose calls hang at its next freed place, not after that account's backlog", async () => {
    if (skip) return;
    // Calls to /hang/ time out after 1 s; 4 at a time to the origin, so one account's 100 of them take 25 s.
    const app = await start({ DELIVERY_TIMEOUT_MS: '1000' });
    const r = await receiver((request) => (request.path.startsWith('/hang/') ? { delayMs: 3_000 } : {}));
    const hanging = await app.createAccount('Hanging');
    const healthy = await app.createAccount('Healthy');
    for (let i = 0; i < 5; i++) await subscribe(app, hanging.apiKey, `${r.url}/hang/${i}`);
    await subscribe(app, healthy.apiKey, `${r.url}/ok`);

    const backlog = await Promise.all(Array.from({ length: 20 }, () => publish(app, hanging.id)));
    expect(backlog.every((a) => a.status === 202)).toBe(true);
    const latencies = await timedDeliveries(app, r, healthy.id, 5);
    // Each waits at most for one of the origin's 4 hanging calls to time out (1 s), never for the 100.
    expect(Math.max(...latencies)).toBeLessThan(2_500);
    expect(r.requests.filter((q) => q.path.startsWith('/hang/')).length).toBeLessThan(100);
  });

  it('keeps another account fast while one account fails every attempt, its retries in their own lane', async () => {
    if (skip) return;
    const app = await start();
    const failing = await receiver({ status: 500 });
    const fast = await receiver();
    const failingAccount = await app.createAccount('Failing');
    const fastAccount = await app.createAccount('Fast');
    await subscribe(app, failingAccount.apiKey, `${failing.url}/in`);
    await subscribe(app, fastAccount.apiKey, `${fast.url}/in`);

    const answers = await Promise.all(Array.from({ length: 300 }, () => publish(app, failingAccount.id)));
    expect(answers.every((a) => a.status === 202)).toBe(true);
    expectUndelayed(await timedDeliveries(app, fast, fastAccount.id, 20));
    await eventually(async () => {
      const [row] = await app.app.get(TypeormDatabase).query<{ n: number | string }>("SELECT COUNT(*) AS n FROM deliveries WHERE status = 'failed'");
      expect(Number(row.n)).toBe(300);
    }, 60_000);
  });

  /**
   * Alone, each of these deliveries takes 10–30 ms here; waiting behind the other account's work
   * would take seconds. One stall of the whole process (a GC, an fsync on a busy machine: CI once
   * saw 1.3 s for one of twenty) is not the unfairness looked for, so the slowest one is left out.
   */
  function expectUndelayed(latencies: number[]): void {
    const sorted = [...latencies].sort((a, b) => a - b);
    expect(sorted[Math.floor(sorted.length / 2)]).toBeLessThan(250);
    expect(sorted[sorted.length - 2]).toBeLessThan(1_000);
  }

  /** Publishes `count` events one after another; for each, the time until the receiver had it. */
  async function timedDeliveries(app: TestApp, r: Receiver, accountId: number, count: number): Promise<number[]> {
    const latencies: number[] = [];
    for (let i = 0; i < count; i++) {
      const sent = Date.now();
      const { body } = await publish(app, accountId).expect(202);
      await eventually(() => expect(r.requests.some((q) => eventIdOf(q.body) === body.id)).toBe(true), 10_000, 2);
      latencies.push(r.requests.find((q) => eventIdOf(q.body) === body.id)!.at - sent);
    }
    return latencies;
  }
});
