import Database from 'better-sqlite3';
import { readForUpdate, takeSqliteWriteLock } from '../../libs/adapters/sql/src/read-for-update';
import { TypeormDatabase } from '../../libs/adapters/sql/src/typeorm-database';
import { openTestDatabase, requireService, TEST_MYSQL, TestDatabase } from '../support/databases';
import { deferred } from '../support/waiting';

const mariadb = requireService('MariaDB', TEST_MYSQL.host, TEST_MYSQL.port);

const row = (db: TypeormDatabase, options: { skipLocked?: boolean; then?: string } = {}) =>
  readForUpdate<{ id: string; n: number }>(db, { table: 'lockables', columns: 'id, n', where: 'id = ?', params: ['a'], ...options });

/** A transaction that holds `row` (read for update) until `release` resolves, then adds one to it. */
function holdRow(db: TypeormDatabase, read: () => Promise<unknown>, held: { resolve(): void }, release: Promise<void>): Promise<void> {
  return db.transaction(async () => {
    await read();
    held.resolve();
    await release;
    await db.exec('UPDATE lockables SET n = n + 1 WHERE id = ?', ['a']);
  });
}

(mariadb ? describe : describe.skip)('readForUpdate on MariaDB', () => {
  let database: TestDatabase;
  let other: TypeormDatabase;

  beforeAll(async () => {
    database = await openTestDatabase('mysql');
    other = await database.connect();
    await database.db.exec('CREATE TABLE lockables (id VARCHAR(8) PRIMARY KEY, n INT NOT NULL, updated_at BIGINT NULL) ENGINE=InnoDB');
    await database.db.exec("INSERT INTO lockables (id, n) VALUES ('a', 0)");
  });

  afterAll(async () => {
    await database?.drop();
  });

  it('makes a second locking read wait for the first transaction, then read what it committed', async () => {
    const held = deferred<void>();
    const release = deferred<void>();
    const first = holdRow(database.db, () => row(database.db), held, release.promise);
    await held.promise;
    let secondRead: number | null = null;
    const second = other.transaction(async () => {
      secondRead = (await row(other))[0].n;
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(secondRead).toBeNull(); // still waiting on the row lock
    release.resolve();
    await Promise.all([first, second]);
    expect(secondRead).toBe(1);
  });

  it('with skipLocked, leaves out the rows another transaction holds instead of waiting', async () => {
    const held = deferred<void>();
    const release = deferred<void>();
    const first = holdRow(database.db, () => row(database.db), held, release.promise);
    await held.promise;
    const skipped = await other.transaction(() => row(other, { skipLocked: true, then: 'ORDER BY id LIMIT 1' }));
    release.resolve();
    await first;
    expect(skipped).toEqual([]);
  });

  it('is a plain read outside a transaction', async () => {
    const held = deferred<void>();
    const release = deferred<void>();
    const first = holdRow(database.db, () => row(database.db), held, release.promise);
    await held.promise;
    const [read] = await row(other); // does not wait for the lock
    release.resolve();
    await first;
    expect(read.n).toBeGreaterThan(0);
  });
});

describe('readForUpdate on SQLite', () => {
  let database: TestDatabase;
  let path: string;

  beforeAll(async () => {
    database = await openTestDatabase('sqlite');
    path = database.storage.kind === 'sqlite' ? database.storage.sqlitePath : '';
    await database.db.exec('CREATE TABLE lockables (id TEXT PRIMARY KEY, n INTEGER NOT NULL, updated_at INTEGER NULL)');
    await database.db.exec("INSERT INTO lockables (id, n) VALUES ('a', 0)");
  });

  afterAll(async () => {
    await database?.drop();
  });

  /** Whether another process could start writing now (a connection that does not wait). */
  function anotherProcessCanWrite(): boolean {
    const outsider = new Database(path, { timeout: 0 });
    try {
      outsider.exec('BEGIN IMMEDIATE');
      outsider.exec('ROLLBACK');
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_BUSY') return false;
      throw error;
    } finally {
      outsider.close();
    }
  }

  it.each([
    ['a read of rows', (db: TypeormDatabase) => row(db)],
    ['a grouped or ordered read', (db: TypeormDatabase) => row(db, { then: 'ORDER BY id LIMIT 1' })],
    ['takeSqliteWriteLock', (db: TypeormDatabase) => takeSqliteWriteLock(db, 'lockables')],
  ])('holds the write lock from %s until the transaction ends, so another process cannot write in between', async (_, read) => {
    const held = deferred<void>();
    const release = deferred<void>();
    const before = Number((await database.db.query<{ n: number }>("SELECT n FROM lockables WHERE id = 'a'"))[0].n);
    const transaction = holdRow(database.db, () => read(database.db), held, release.promise);
    await held.promise;
    expect(anotherProcessCanWrite()).toBe(false);
    release.resolve();
    await transaction;
    expect(anotherProcessCanWrite()).toBe(true);
    expect(Number((await database.db.query<{ n: number }>("SELECT n FROM lockables WHERE id = 'a'"))[0].n)).toBe(before + 1);
  });

  it('changes no row and takes no lock outside a transaction', async () => {
    const [read] = await row(database.db);
    await takeSqliteWriteLock(database.db, 'lockables');
    expect(anotherProcessCanWrite()).toBe(true);
    expect(read).toEqual({ id: 'a', n: expect.any(Number) });
  });
});
