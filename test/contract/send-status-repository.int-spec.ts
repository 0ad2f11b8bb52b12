import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../libs/adapters/sql/src/data-source.factory';
import { TypeormDatabase } from '../../libs/adapters/sql/src/typeorm-database';
import { createMysqlDatabase } from '../support/databases';
import { profileAvailable } from '../support/test-app';
import { InMemorySendRepository } from '../../libs/send-status/src/testing/send-status.fakes';
import { describeSendRepositoryContract, SendStorageHandle } from './send-status-repository.contract';

async function handleFor(open: () => Promise<TypeormDatabase>, cleanup: () => Promise<void>, separateSecond: boolean): Promise<SendStorageHandle> {
  const opened: TypeormDatabase[] = [await open()];
  return {
    db: opened[0],
    async openSecond() {
      if (!separateSecond) return opened[0];
      const db = await open();
      opened.push(db);
      return db;
    },
    async close() {
      for (const db of opened) await db.dataSource.destroy();
      await cleanup();
    },
  };
}

describeSendRepositoryContract('in-memory fakes', async () => ({
  db: null,
  repository: new InMemorySendRepository(),
  openSecond: () => Promise.reject(new Error('the fakes have no second connection')),
  close: async () => undefined,
}));

describeSendRepositoryContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wh-send-status-'));
  const sqlitePath = join(dir, 'service.db');
  return handleFor(
    () => openDatabase({ kind: 'sqlite', sqlitePath, databaseUrl: null, statementTimeoutMs: 10_000 }),
    async () => rmSync(dir, { recursive: true, force: true }),
    // SQLite storage is one process with one connection (better-sqlite3 waits for a lock
    // synchronously, so two connections in one process would block each other's event loop).
    false,
  );
});

describeSendRepositoryContract('mariadb', async () => {
  if (!(await profileAvailable('mysql-nats'))) return null;
  const database = await createMysqlDatabase('wh_send_status');
  return handleFor(
    () => openDatabase({ kind: 'mysql', sqlitePath: '', databaseUrl: database.url, statementTimeoutMs: 10_000 }),
    () => database.drop(),
    true,
  );
});
