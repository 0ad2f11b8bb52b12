import { NatsWorkQueue } from '../../libs/adapters/queue/src/nats/nats-work-queue';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SystemClock } from '../../libs/kernel/src';
import { openTestDatabase, requireService, TEST_MYSQL, TEST_NATS, TestDatabase } from '../support/databases';
import { deleteTestStream, natsServerBinaryAvailable, startNatsServer, uniqueNatsPrefix } from '../support/nats';
import { TestLogger } from '../support/test-logger';
import { sleep, waitFor } from '../support/waiting';
import { randomListenPort } from '../support/ports';

const clock = new SystemClock();
const CLOSED_PORT_URL = 'nats://127.0.0.1:4999';

const ready = requireService('MariaDB', TEST_MYSQL.host, TEST_MYSQL.port) && requireService('NATS', TEST_NATS.host, TEST_NATS.port);

(ready ? describe : describe.skip)('NATS outbox: the queue is down when work is enqueued', () => {
  let database: TestDatabase;
  const prefix = uniqueNatsPrefix();
  const queues: NatsWorkQueue[] = [];

  beforeAll(async () => {
    database = await openTestDatabase('mysql');
  });

  afterAll(async () => {
    for (const queue of queues) await queue.close();
    await deleteTestStream(prefix);
    await database?.drop();
  });

  it('loses nothing: a process that reaches NATS hands every committed item over within 5 s', async () => {
    const topic = 'outbox_test';
    const down = await NatsWorkQueue.create(database.db, clock, { servers: CLOSED_PORT_URL, prefix, startWaitMs: 200, logger: new TestLogger() });
    queues.push(down);
    await expect(down.ping()).rejects.toThrow();

    const total = 120;
    for (let batch = 0; batch < total / 20; batch++) {
      await database.db.transaction(() => down.enqueue(Array.from({ length: 20 }, (_, i) => ({ topic, payload: { n: batch * 20 + i } }))));
    }
    // Also a delayed item, due before the second process starts, and a rolled-back one.
    await database.db.transaction(() => down.enqueue([{ topic, payload: { n: total }, runAt: new Date(Date.now() + 200) }]));
    await database.db
      .transaction(async () => {
        await down.enqueue([{ topic, payload: { n: -1 } }]);
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await outboxCount(database)).toBe(total + 1);

    const started = Date.now();
    const upLogger = new TestLogger();
    const up = await NatsWorkQueue.create(await database.connect(), clock, { servers: TEST_NATS.url, prefix, logger: upLogger });
    queues.push(up);
    const seen = new Map<number, number>();
    await up.consume(topic, async (work) => (seen.set(Number(work.payload.n), (seen.get(Number(work.payload.n)) ?? 0) + 1), { kind: 'done' }), { concurrency: 32 });
    await waitFor(`${total + 1} items`, () => seen.size >= total + 1, 5_000);
    const handedOverMs = Date.now() - started;
    console.log(`outbox: ${total + 1} items handed over and consumed ${handedOverMs} ms after the second process started`);

    expect(handedOverMs).toBeLessThan(5_000);
    expect([...seen.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: total + 1 }, (_, i) => i));
    await outboxDrains(database, upLogger);
  }, 30_000);
});

const ownServer = ready && natsServerBinaryAvailable();
if (ready && !ownServer) console.warn('nats-server is not on the PATH: skipping the NATS outage test');

(ownServer ? describe : describe.skip)('NATS outbox: NATS goes away and comes back', () => {
  it('re-hands everything enqueued during the outage within 5 s of NATS coming back', async () => {
    const database = await openTestDatabase('mysql');
    const storeDir = mkdtempSync(join(tmpdir(), 'wh-nats-'));
    const port = randomListenPort();
    let server = await startNatsServer(port, storeDir);
    const queue = await NatsWorkQueue.create(database.db, clock, { servers: server.url, prefix: 'outage', logger: new TestLogger() });
    try {
      const topic = 'outage_test';
      const seen = new Set<number>();
      await queue.consume(topic, async (work) => (seen.add(Number(work.payload.n)), { kind: 'done' }), { concurrency: 16 });
      await database.db.transaction(() => queue.enqueue(Array.from({ length: 10 }, (_, n) => ({ topic, payload: { n } }))));
      await waitFor('the items enqueued before the outage', () => seen.size === 10, 5_000);

      await server.stop();
      await sleep(300);
      await expect(queue.ping()).rejects.toThrow();
      for (let batch = 1; batch <= 5; batch++) {
        await database.db.transaction(() => queue.enqueue(Array.from({ length: 10 }, (_, i) => ({ topic, payload: { n: batch * 10 + i } }))));
      }
      await sleep(1_000);
      expect(seen.size).toBe(10);
      expect(await outboxCount(database)).toBe(50);

      server = await startNatsServer(port, storeDir);
      const back = Date.now();
      await waitFor('every item enqueued during the outage', () => seen.size === 60, 5_000);
      console.log(`outbox: 50 items enqueued during an outage consumed ${Date.now() - back} ms after NATS came back`);
      await outboxDrains(database);
      await expect(queue.ping()).resolves.toBeUndefined();
    } finally {
      await queue.close();
      await server.stop();
      await database.drop();
      rmSync(storeDir, { recursive: true, force: true });
    }
  }, 40_000);
});

(ownServer ? describe : describe.skip)('NATS outbox: items their enqueuer sweeps back (sweptBackIfLost)', () => {
  it('skip the outbox while NATS is up, and get a row (handed over when NATS is back) when it is not', async () => {
    const database = await openTestDatabase('mysql');
    const storeDir = mkdtempSync(join(tmpdir(), 'wh-nats-'));
    const port = randomListenPort();
    let server = await startNatsServer(port, storeDir);
    const queue = await NatsWorkQueue.create(database.db, clock, { servers: server.url, prefix: 'swept', logger: new TestLogger() });
    const inserts = countOutboxInserts(database);
    try {
      const topic = 'swept_test';
      const seen = new Set<number>();
      await queue.consume(topic, async (work) => (seen.add(Number(work.payload.n)), { kind: 'done' }), { concurrency: 16 });
      await database.db.transaction(() => queue.enqueue(Array.from({ length: 20 }, (_, n) => ({ topic, payload: { n }, sweptBackIfLost: true }))));
      await waitFor('the items enqueued while NATS is up', () => seen.size === 20, 5_000);
      expect(inserts.count).toBe(0);

      await server.stop();
      await sleep(300);
      await database.db.transaction(() => queue.enqueue(Array.from({ length: 10 }, (_, i) => ({ topic, payload: { n: 20 + i }, sweptBackIfLost: true }))));
      await waitFor('the outbox rows of the items NATS could not take', async () => (await outboxCount(database)) === 10, 3_000);

      server = await startNatsServer(port, storeDir);
      await waitFor('every item enqueued during the outage', () => seen.size === 30, 5_000);
      await outboxDrains(database);
    } finally {
      inserts.stop();
      await queue.close();
      await server.stop();
      await database.drop();
      rmSync(storeDir, { recursive: true, force: true });
    }
  }, 40_000);
});

/** Counts the INSERTs into the outbox that go through `database`'s connection from now on. */
function countOutboxInserts(database: TestDatabase): { count: number; stop(): void } {
  const original = database.db.exec.bind(database.db);
  const counter = {
    count: 0,
    stop: () => {
      database.db.exec = original;
    },
  };
  database.db.exec = (async (sql: string, params?: unknown[]) => {
    if (/^\s*INSERT INTO outbox/i.test(sql)) counter.count++;
    return original(sql, params);
  }) as typeof database.db.exec;
  return counter;
}

/**
 * The relay deletes what it published right after JetStream's ack; a publish whose ack timed out
 * on a loaded machine is published again a second later (stored twice at worst, never lost).
 */
async function outboxDrains(database: TestDatabase, logger?: TestLogger): Promise<void> {
  await waitFor('an empty outbox', async () => (await outboxCount(database)) === 0, 10_000).catch(async (error) => {
    const left = await database.db.query('SELECT id, available_at, lease_token, delivery_count FROM outbox');
    throw new Error(`${(error as Error).message}; rows left: ${JSON.stringify(left)}; queue warnings: ${JSON.stringify(logger?.lines ?? [])}`);
  });
}

async function outboxCount(database: TestDatabase): Promise<number> {
  const [row] = await database.db.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM outbox');
  return Number(row.n);
}

(ready ? describe : describe.skip)('NATS outbox: the stream is deleted while the queue runs', () => {
  it('creates the stream (and the consumer) again, so items enqueued afterwards are handed over', async () => {
    const database = await openTestDatabase('mysql');
    const prefix = uniqueNatsPrefix();
    const queue = await NatsWorkQueue.create(database.db, clock, { servers: TEST_NATS.url, prefix, logger: new TestLogger() });
    try {
      const topic = 'restore_test';
      const seen = new Set<number>();
      await queue.consume(topic, async (work) => (seen.add(Number(work.payload.n)), { kind: 'done' }), { concurrency: 16 });
      await database.db.transaction(() => queue.enqueue(Array.from({ length: 10 }, (_, n) => ({ topic, payload: { n } }))));
      await waitFor('the items enqueued before the deletion', () => seen.size === 10, 5_000);

      await deleteTestStream(prefix);
      await database.db.transaction(() => queue.enqueue(Array.from({ length: 10 }, (_, i) => ({ topic, payload: { n: 10 + i } }))));
      await waitFor('the items enqueued after the deletion', () => seen.size === 20, 15_000);
      await waitFor('an empty outbox', async () => (await outboxCount(database)) === 0, 5_000);
    } finally {
      await queue.close();
      await deleteTestStream(prefix);
      await database.drop();
    }
  }, 40_000);
});
