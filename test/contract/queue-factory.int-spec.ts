import { loadConfig } from '../../config/load-config';
import { DatabaseWorkQueue } from '../../libs/adapters/queue/src/database/database-work-queue';
import { NatsWorkQueue } from '../../libs/adapters/queue/src/nats/nats-work-queue';
import { createWorkQueue } from '../../libs/adapters/queue/src/queue.factory';
import { SystemClock } from '../../libs/kernel/src';
import { openTestDatabase, requireService, TEST_NATS, TestDatabase } from '../support/databases';
import { deleteTestStream, uniqueNatsPrefix } from '../support/nats';

describe(createWorkQueue.name, () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await openTestDatabase('sqlite');
  });

  afterAll(async () => {
    await database?.drop();
  });

  it('builds the database queue by default (npm start on SQLite)', async () => {
    const sut = await createWorkQueue(loadConfig({}), database.db, new SystemClock());
    try {
      expect(sut).toBeInstanceOf(DatabaseWorkQueue);
      await expect(sut.ping()).resolves.toBeUndefined();
    } finally {
      await sut.close();
    }
  });

  const natsUp = requireService('NATS', TEST_NATS.host, TEST_NATS.port);
  (natsUp ? it : it.skip)('builds the NATS queue for QUEUE=nats', async () => {
    const prefix = uniqueNatsPrefix();
    const sut = await createWorkQueue(loadConfig({ QUEUE: 'nats', NATS_URL: TEST_NATS.url, NATS_PREFIX: prefix }), database.db, new SystemClock());
    try {
      expect(sut).toBeInstanceOf(NatsWorkQueue);
      await expect(sut.ping()).resolves.toBeUndefined();
    } finally {
      await sut.close();
      await deleteTestStream(prefix);
    }
  });
});
