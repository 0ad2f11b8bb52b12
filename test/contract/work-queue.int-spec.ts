import { DatabaseWorkQueue } from '../../libs/adapters/queue/src/database/database-work-queue';
import { NatsWorkQueue } from '../../libs/adapters/queue/src/nats/nats-work-queue';
import { SystemClock } from '../../libs/kernel/src';
import { killableView, openTestDatabase, requireService, TEST_MYSQL, TEST_NATS } from '../support/databases';
import { deleteTestStream, killableConnect, uniqueNatsPrefix } from '../support/nats';
import { TestLogger } from '../support/test-logger';
import { describeWorkQueueContract, QueueHarness } from './work-queue.contract';

const clock = new SystemClock();
/** Lease / ack wait of the processes under test: long enough for every handler here, short enough to wait out. */
const HOLD_MS = 1_500;
const failureBackoff = { baseMs: 50, maxMs: 1_000 };

/**
 * On MariaDB each process opens its own connection pool. On SQLite the processes share the one
 * connection (two in one thread would block each other) and die through a killable view of it.
 */
function databaseQueueHarness(kind: 'sqlite' | 'mysql') {
  return async (): Promise<QueueHarness> => {
    const database = await openTestDatabase(kind);
    return {
      holdMs: HOLD_MS,
      async startProcess() {
        const own = kind === 'mysql' ? await database.connect() : null;
        const view = killableView(own ?? database.db);
        const queue = new DatabaseWorkQueue(view.db, clock, { leaseMs: HOLD_MS, failureBackoff, logger: new TestLogger() });
        return {
          queue,
          db: view.db,
          crash: async () => {
            view.kill();
            await own?.dataSource.destroy();
          },
          close: async () => {
            await queue.close();
            if (own?.dataSource.isInitialized) await own.dataSource.destroy();
          },
        };
      },
      dispose: () => database.drop(),
    };
  };
}

const mysqlUp = requireService('MariaDB', TEST_MYSQL.host, TEST_MYSQL.port);
const natsUp = requireService('NATS', TEST_NATS.host, TEST_NATS.port);

describeWorkQueueContract('DatabaseWorkQueue on SQLite', databaseQueueHarness('sqlite'));

describeWorkQueueContract('DatabaseWorkQueue on MariaDB', databaseQueueHarness('mysql'), { skip: !mysqlUp });

describeWorkQueueContract(
  'NatsWorkQueue on MariaDB',
  async () => {
    const database = await openTestDatabase('mysql');
    const prefix = uniqueNatsPrefix();
    return {
      holdMs: HOLD_MS,
      async startProcess() {
        const db = await database.connect();
        const link = killableConnect();
        const queue = await NatsWorkQueue.create(db, clock, {
          servers: TEST_NATS.url,
          prefix,
          ackWaitMs: HOLD_MS,
          fetchExpiresMs: 1_000,
          relayIntervalMs: 100,
          failureBackoff,
          logger: new TestLogger(),
          connect: link.connect,
        });
        return {
          queue,
          db,
          crash: async () => {
            await link.kill();
            await db.dataSource.destroy();
          },
          close: async () => {
            await queue.close();
            if (db.dataSource.isInitialized) await db.dataSource.destroy();
          },
        };
      },
      dispose: async () => {
        await deleteTestStream(prefix);
        await database.drop();
      },
    };
  },
  { skip: !(mysqlUp && natsUp) },
);
