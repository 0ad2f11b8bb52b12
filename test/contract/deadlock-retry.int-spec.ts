import { openTestDatabase, requireService, TEST_MYSQL, TestDatabase } from '../support/databases';
import { deferred } from '../support/waiting';

const ready = requireService('MariaDB', TEST_MYSQL.host, TEST_MYSQL.port);

/**
 * Two producers whose transactions lock the same rows in opposite orders deadlock on InnoDB: the
 * loser's transaction is rolled back by the server and must be run again, not answered 500.
 */
(ready ? describe : describe.skip)('TypeormDatabase.transaction on MariaDB: deadlocks and lock waits', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await openTestDatabase('mysql');
    await database.db.exec('CREATE TABLE counters (id INT PRIMARY KEY, n INT NOT NULL) ENGINE=InnoDB');
    await database.db.exec('INSERT INTO counters (id, n) VALUES (1, 0), (2, 0)');
  });

  afterAll(async () => {
    await database?.drop();
  });

  it('runs the transaction that lost a deadlock again, so both commit', async () => {
    const other = await database.connect();
    const bothLocked = { first: deferred<void>(), second: deferred<void>() };
    let runs = 0;
    const crosswise = (db: typeof database.db, mine: number, theirs: number, locked: { resolve(): void }, wait: Promise<void>) =>
      db.transaction(async () => {
        runs++;
        await db.exec('UPDATE counters SET n = n + 1 WHERE id = ?', [mine]);
        locked.resolve();
        await wait;
        await db.exec('UPDATE counters SET n = n + 1 WHERE id = ?', [theirs]);
      });
    await Promise.all([
      crosswise(database.db, 1, 2, bothLocked.first, bothLocked.second.promise),
      crosswise(other, 2, 1, bothLocked.second, bothLocked.first.promise),
    ]);
    expect(runs).toBe(3); // one of the two ran twice
    expect(await database.db.query<{ id: number; n: number }>('SELECT id, n FROM counters ORDER BY id')).toEqual([
      { id: 1, n: 2 },
      { id: 2, n: 2 },
    ]);
  });

  it('runs a single statement outside a transaction again when it lost a deadlock', async () => {
    await database.db.exec('CREATE TABLE pairs (id INT PRIMARY KEY, n INT NOT NULL) ENGINE=InnoDB');
    await database.db.exec(`INSERT INTO pairs (id, n) VALUES ${Array.from({ length: 50 }, (_, i) => `(${i + 1}, 0)`).join(', ')}`);
    const holder = await database.connect();
    const statement = 'UPDATE pairs SET n = n + 1 WHERE id IN (1, 2) ORDER BY id';
    const runner = database.db.dataSource.createQueryRunner.bind(database.db.dataSource);
    let statementRuns = 0;
    const spy = jest.spyOn(database.db.dataSource, 'createQueryRunner').mockImplementation((...args) => {
      const created = runner(...args);
      const query = created.query.bind(created);
      created.query = ((sql: string, ...rest: unknown[]) => {
        if (sql === statement) statementRuns++;
        return (query as (...a: unknown[]) => Promise<unknown>)(sql, ...rest);
      }) as typeof created.query;
      return created;
    });
    const locked = deferred();
    try {
      // The holder changes many rows (InnoDB rolls back the transaction that changed fewer) and row 2,
      // the statement takes row 1 and waits for row 2, then the holder asks for row 1: a deadlock.
      const holding = holder.transaction(async () => {
        await holder.exec('UPDATE pairs SET n = n + 10 WHERE id >= 2');
        locked.resolve();
        await new Promise((resolve) => setTimeout(resolve, 300));
        await holder.exec('UPDATE pairs SET n = n + 10 WHERE id = 1');
      });
      await locked.promise;
      await database.db.exec(statement);
      await holding;
    } finally {
      spy.mockRestore();
    }
    expect(statementRuns).toBe(2);
    expect(await database.db.query<{ id: number; n: number }>('SELECT id, n FROM pairs WHERE id <= 3 ORDER BY id')).toEqual([
      { id: 1, n: 11 },
      { id: 2, n: 11 },
      { id: 3, n: 10 },
    ]);
  });

  it('runs a transaction again after a lock wait timeout', async () => {
    const holder = await database.connect();
    const waiter = await database.connect();
    await waiter.exec('SET SESSION innodb_lock_wait_timeout = 1');
    const held = deferred();
    const release = deferred();
    const holding = holder.transaction(async () => {
      await holder.exec('UPDATE counters SET n = n + 10 WHERE id = 1');
      held.resolve();
      await release.promise;
    });
    await held.promise;
    let runs = 0;
    setTimeout(() => release.resolve(), 1_500); // the first try times out after 1 s, a later one gets through
    await waiter.transaction(async () => {
      runs++;
      await waiter.exec('UPDATE counters SET n = n + 1 WHERE id = 1');
    });
    await holding;
    expect(runs).toBeGreaterThanOrEqual(2);
    expect((await database.db.query<{ n: number }>('SELECT n FROM counters WHERE id = 1'))[0].n).toBe(13);
  });
});
