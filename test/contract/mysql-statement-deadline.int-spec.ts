import { createConnection } from 'mysql2/promise';
import { openDatabase } from '../../libs/adapters/sql/src/data-source.factory';
import { TypeormDatabase } from '../../libs/adapters/sql/src/typeorm-database';
import { DomainError } from '../../libs/kernel/src';
import { createMysqlDatabase, requireService, TEST_MYSQL } from '../support/databases';
import { startTcpProxy, TcpProxy } from '../support/tcp-proxy';

const ready = requireService('MariaDB', TEST_MYSQL.host, TEST_MYSQL.port);
const TIMEOUT_MS = 1_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * MariaDB that stops answering (a proxy that keeps the connections open and relays nothing, as a
 * frozen server or a black-holed network does): a statement that can be given up without
 * committing anything fails `unavailable` after DATABASE_STATEMENT_TIMEOUT, with nothing of its
 * transaction committed; a COMMIT or a write outside a transaction waits for its answer.
 */
(ready ? describe : describe.skip)('the MySQL statement deadline, against a MariaDB that stops answering', () => {
  let database: Awaited<ReturnType<typeof createMysqlDatabase>>;
  let proxy: TcpProxy;
  let db: TypeormDatabase;
  /** Straight to the server, past the proxy: what was committed. */
  const committed = async () => {
    const direct = await createConnection({ host: TEST_MYSQL.host, port: TEST_MYSQL.port, user: TEST_MYSQL.user, database: database.name });
    try {
      const [rows] = await direct.query('SELECT name FROM probes ORDER BY name');
      return (rows as Array<{ name: string }>).map((row) => row.name);
    } finally {
      await direct.end();
    }
  };
  const timed = async <T>(work: Promise<T>) => {
    const startedAt = Date.now();
    const outcome = await work.then(
      (value) => ({ value, error: null as unknown }),
      (error: unknown) => ({ value: null, error }),
    );
    return { ...outcome, ms: Date.now() - startedAt };
  };

  beforeAll(async () => {
    database = await createMysqlDatabase('wh_deadline');
    proxy = await startTcpProxy(TEST_MYSQL.port, TEST_MYSQL.host);
    db = await openDatabase({ kind: 'mysql', sqlitePath: '', databaseUrl: `mysql://${TEST_MYSQL.user}@127.0.0.1:${proxy.port}/${database.name}`, statementTimeoutMs: TIMEOUT_MS });
    await db.exec('CREATE TABLE probes (name VARCHAR(32) PRIMARY KEY) ENGINE=InnoDB');
  });

  afterEach(() => proxy.resume());

  afterAll(async () => {
    await db?.dataSource.destroy();
    await proxy?.shutdown();
    await database?.drop();
  });

  it('gives up a read after the deadline, as unavailable', async () => {
    proxy.stall();
    const read = await timed(db.query('SELECT name FROM probes'));
    expect(read.error).toBeInstanceOf(DomainError);
    expect((read.error as DomainError).code).toBe('unavailable');
    expect(read.ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(read.ms).toBeLessThan(TIMEOUT_MS + 1_500);
  });

  it('gives up a transaction before its COMMIT, and nothing of it is committed', async () => {
    const transaction = timed(
      db.transaction(async () => {
        await db.exec(`INSERT INTO probes (name) VALUES ('before the stall')`);
        proxy.stall();
        await db.exec(`INSERT INTO probes (name) VALUES ('during the stall')`);
      }),
    );
    const outcome = await transaction;
    expect((outcome.error as DomainError).code).toBe('unavailable');
    expect(outcome.ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(outcome.ms).toBeLessThan(TIMEOUT_MS + 1_500);
    proxy.resume();
    // The closed connection's transaction is rolled back by the server.
    await sleep(200);
    expect(await committed()).not.toContain('before the stall');
    // The pool opens fresh connections: the database works again at once.
    await expect(db.query('SELECT 1 AS one')).resolves.toEqual([{ one: 1 }]);
  });

  it('waits for a COMMIT however long the server takes, since it may commit anyway', async () => {
    const transaction = timed(
      db.transaction(async () => {
        await db.exec(`INSERT INTO probes (name) VALUES ('committed late')`);
        proxy.stall();
        setTimeout(() => proxy.resume(), TIMEOUT_MS * 2.5);
      }),
    );
    const outcome = await transaction;
    expect(outcome.error).toBeNull();
    expect(outcome.ms).toBeGreaterThanOrEqual(TIMEOUT_MS * 2.5 - 50);
    expect(await committed()).toContain('committed late');
  });

  it('waits for a write outside a transaction, which commits by itself', async () => {
    proxy.stall();
    setTimeout(() => proxy.resume(), TIMEOUT_MS * 2.5);
    const write = await timed(db.exec(`INSERT INTO probes (name) VALUES ('autocommit')`));
    expect(write.error).toBeNull();
    expect(write.ms).toBeGreaterThanOrEqual(TIMEOUT_MS * 2.5 - 50);
    expect(await committed()).toContain('autocommit');
  });
});
