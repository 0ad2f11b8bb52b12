import { NatsWorkQueue } from '../../libs/adapters/queue/src/nats/nats-work-queue';
import { JetStreamTopology } from '../../libs/adapters/queue/src/nats/jetstream-topology';
import { MAX_ITEMS_PER_MESSAGE } from '../../libs/adapters/queue/src/nats/work-message';
import { SystemClock } from '../../libs/kernel/src';
import { openTestDatabase, requireService, TEST_MYSQL, TEST_NATS, TestDatabase } from '../support/databases';
import { deleteTestStream, uniqueNatsPrefix } from '../support/nats';
import { TestLogger } from '../support/test-logger';
import { waitFor } from '../support/waiting';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';

const ready = requireService('MariaDB', TEST_MYSQL.host, TEST_MYSQL.port) && requireService('NATS', TEST_NATS.host, TEST_NATS.port);

/**
 * Items committed together travel in shared messages (one publish and one ack for up to
 * MAX_ITEMS_PER_MESSAGE items), and a consumer still runs each item on its own.
 */
(ready ? describe : describe.skip)('NATS: items enqueued together share messages', () => {
  let database: TestDatabase;
  let queue: NatsWorkQueue;
  const prefix = uniqueNatsPrefix();

  beforeAll(async () => {
    database = await openTestDatabase('mysql');
    queue = await NatsWorkQueue.create(database.db, new SystemClock(), { servers: TEST_NATS.url, prefix, logger: new TestLogger() });
  });

  afterAll(async () => {
    await queue?.close();
    await deleteTestStream(prefix);
    await database?.drop();
  });

  it(`stores 100 items committed together as ${Math.ceil(100 / MAX_ITEMS_PER_MESSAGE)} messages, and hands each over once`, async () => {
    const topic = 'shared_messages';
    const total = 100;
    await database.db.transaction(() => queue.enqueue(Array.from({ length: total }, (_, n) => ({ topic, payload: { n }, sweptBackIfLost: true }))));
    const nc = await connect({ servers: TEST_NATS.url });
    try {
      const jsm = await jetstreamManager(nc);
      const stream = new JetStreamTopology(prefix, 1).stream;
      await waitFor('the messages stored', async () => (await jsm.streams.info(stream)).state.messages === Math.ceil(total / MAX_ITEMS_PER_MESSAGE), 5_000);
    } finally {
      await nc.close();
    }
    const seen: number[] = [];
    await queue.consume(topic, async (work) => (seen.push(Number(work.payload.n)), { kind: 'done' }), { concurrency: 8 });
    await waitFor('every item', () => seen.length >= total, 5_000);
    expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: total }, (_, n) => n));
    expect(await outboxCount(database)).toBe(0);
  });
});

async function outboxCount(database: TestDatabase): Promise<number> {
  const [row] = await database.db.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM outbox');
  return Number(row.n);
}
