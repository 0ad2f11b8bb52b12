import { TypeormDatabase } from '../../libs/adapters/sql/src/typeorm-database';
import { openTestDatabase, TestDatabase } from '../support/databases';
import { serviceAvailable, TEST_MYSQL } from '../support/services';

/**
 * On MySQL a transaction sends START TRANSACTION with its first statement, and the writes nobody
 * reads the answer of (`write`) with its next statement or its COMMIT, in one round trip each;
 * `execAll` sends several statements in one. SQLite runs each statement at once. Both dialects must
 * give the same results: order kept, a failed write failing the whole transaction.
 */
describe.each(['sqlite', 'mysql'] as const)('statements sent together (%s)', (kind) => {
  let database: TestDatabase;
  let db: TypeormDatabase;
  let skip = false;
  /** The SQL texts sent to the database, one per round trip. */
  let sent: string[] = [];

  beforeAll(async () => {
    skip = kind === 'mysql' && !(await serviceAvailable('MariaDB', TEST_MYSQL.host, TEST_MYSQL.port));
    if (skip) return;
    database = await openTestDatabase(kind);
    db = database.db;
    await db.exec('CREATE TABLE items (id INT PRIMARY KEY, label LONGTEXT NOT NULL)');
    const create = db.dataSource.createQueryRunner.bind(db.dataSource);
    jest.spyOn(db.dataSource, 'createQueryRunner').mockImplementation((...args) => {
      const runner = create(...args);
      const query = runner.query.bind(runner);
      runner.query = ((sql: string, ...rest: unknown[]) => {
        sent.push(sql);
        return (query as (...a: unknown[]) => Promise<unknown>)(sql, ...rest);
      }) as typeof runner.query;
      return runner;
    });
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    if (!skip) await database.drop();
  });
  beforeEach(async () => {
    if (skip) return;
    await db.exec('DELETE FROM items');
    sent = [];
  });

  const labels = async () => (await db.query<{ id: number; label: string }>('SELECT id, label FROM items ORDER BY id')).map((r) => `${Number(r.id)}:${r.label}`);

  it('sends held writes in order ahead of the next statement, which sees them, and commits them with the COMMIT', async () => {
    const seen = await db.transaction(async () => {
      await db.write('INSERT INTO items (id, label) VALUES (?, ?)', [1, 'one']);
      await db.write('UPDATE items SET label = ? WHERE id = ?', ['uno', 1]);
      const rows = await db.query<{ label: string }>('SELECT label FROM items WHERE id = ?', [1]);
      await db.write('INSERT INTO items (id, label) VALUES (?, ?)', [2, 'two']);
      return rows.map((r) => r.label);
    });
    expect(seen).toEqual(['uno']);
    expect(await labels()).toEqual(['1:uno', '2:two']);
    if (kind === 'mysql') {
      expect(sent.slice(0, 2)).toEqual([
        'START TRANSACTION;\nINSERT INTO items (id, label) VALUES (?, ?);\nUPDATE items SET label = ? WHERE id = ?;\nSELECT label FROM items WHERE id = ?',
        'INSERT INTO items (id, label) VALUES (?, ?);\nCOMMIT',
      ]);
    }
  });

  it('fails the transaction when a held write fails, and commits nothing of it', async () => {
    await db.exec('INSERT INTO items (id, label) VALUES (?, ?)', [9, 'kept']);
    const failing = db.transaction(async () => {
      await db.exec('UPDATE items SET label = ? WHERE id = ?', ['changed', 9]);
      await db.write('INSERT INTO items (id, label) VALUES (?, ?)', [3, 'three']);
      await db.write('INSERT INTO items (id, label) VALUES (?, ?)', [9, 'a duplicate key']);
    });
    await expect(failing).rejects.toThrow(/Duplicate|UNIQUE/i);
    expect(await labels()).toEqual(['9:kept']);
    // the connection went back to the pool out of any transaction: the next one commits alone
    await db.transaction(async () => {
      await db.write('INSERT INTO items (id, label) VALUES (?, ?)', [4, 'four']);
    });
    expect(await labels()).toEqual(['4:four', '9:kept']);
  });

  it('sends nothing for a transaction that ran no statement, and everything in one round trip for one that only wrote', async () => {
    expect(await db.transaction(async () => 'nothing')).toBe('nothing');
    if (kind === 'mysql') expect(sent).toEqual([]);
    await db.transaction(async () => {
      await db.write('INSERT INTO items (id, label) VALUES (?, ?)', [5, 'five']);
      await db.write('INSERT INTO items (id, label) VALUES (?, ?)', [6, 'six']);
    });
    expect(await labels()).toEqual(['5:five', '6:six']);
    if (kind === 'mysql') expect(sent[0]).toBe('START TRANSACTION;\nINSERT INTO items (id, label) VALUES (?, ?);\nINSERT INTO items (id, label) VALUES (?, ?);\nCOMMIT');
  });

  it('sends held writes beyond a megabyte before the commit, so that statements sent together stay far below the packet limit', async () => {
    const big = 'x'.repeat(700_000);
    await db.transaction(async () => {
      for (let id = 1; id <= 4; id++) await db.write('INSERT INTO items (id, label) VALUES (?, ?)', [id, big]);
    });
    expect(Number((await db.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM items WHERE LENGTH(label) = 700000'))[0].n)).toBe(4);
    // two writes of 700 KB pass the megabyte: they go at once, then the next two, then the COMMIT alone
    if (kind === 'mysql') expect(sent.slice(0, 3).map((sql) => sql.split('INSERT').length - 1)).toEqual([2, 2, 0]);
  });

  it('runs statements sent together in order and answers each one, in a transaction and outside', async () => {
    const outside = await db.execAll<{ label: string }>([
      { sql: 'INSERT INTO items (id, label) VALUES (?, ?), (?, ?)', params: [7, 'seven', 8, 'eight'] },
      { sql: 'UPDATE items SET label = ? WHERE id >= ?', params: ['many', 7] },
      { sql: 'SELECT label FROM items WHERE id = ?', params: [8] },
    ]);
    expect(outside.map((r) => r.affected)).toEqual([2, 2, 0]);
    expect(outside[2].rows.map((r) => r.label)).toEqual(['many']);
    if (kind === 'mysql') expect(sent).toHaveLength(1);
    const inside = await db.transaction(() =>
      db.execAll<{ n: number | string }>([
        { sql: 'DELETE FROM items WHERE id = ?', params: [7] },
        { sql: 'SELECT COUNT(*) AS n FROM items', params: [] },
      ]),
    );
    expect(inside.map((r) => r.affected)).toEqual([1, 0]);
    expect(Number(inside[1].rows[0].n)).toBe(1);
  });

  it('sends plain reads issued together outside a transaction in one round trip, each with its own answer', async () => {
    await db.exec('INSERT INTO items (id, label) VALUES (?, ?), (?, ?)', [1, 'one', 2, 'two']);
    sent = [];
    const [one, two, none] = await Promise.all([
      db.query<{ label: string }>('SELECT label FROM items WHERE id = ?', [1]),
      db.query<{ label: string }>('SELECT label FROM items WHERE id = ?', [2]),
      db.query<{ label: string }>('SELECT label FROM items WHERE id = ?', [3]),
    ]);
    expect([one, two, none]).toEqual([[{ label: 'one' }], [{ label: 'two' }], []]);
    if (kind === 'mysql') expect(sent).toHaveLength(1);
  });

  it('answers each read of a round trip in which one failed on its own', async () => {
    await db.exec('INSERT INTO items (id, label) VALUES (?, ?)', [1, 'one']);
    const [before, broken, after] = await Promise.allSettled([
      db.query<{ label: string }>('SELECT label FROM items WHERE id = ?', [1]),
      db.query('SELECT no_such_column FROM items'),
      db.query<{ label: string }>('SELECT label FROM items WHERE id = ?', [1]),
    ]);
    expect(before).toEqual({ status: 'fulfilled', value: [{ label: 'one' }] });
    expect(broken.status).toBe('rejected');
    expect(String((broken as PromiseRejectedResult).reason)).toMatch(/no_such_column/);
    expect(after).toEqual({ status: 'fulfilled', value: [{ label: 'one' }] });
  });

  it('sends the statements a transaction asks for concurrently in one round trip, in the order asked, each with its own answer', async () => {
    await db.exec('INSERT INTO items (id, label) VALUES (?, ?), (?, ?)', [1, 'one', 2, 'two']);
    sent = [];
    const [updated, one, two] = await db.transaction(async () => {
      await db.write('INSERT INTO items (id, label) VALUES (?, ?)', [3, 'three']);
      return Promise.all([
        db.exec('UPDATE items SET label = ? WHERE id = ?', ['uno', 1]),
        db.query<{ label: string }>('SELECT label FROM items WHERE id = ?', [1]),
        db.query<{ label: string }>('SELECT label FROM items WHERE id IN (?, ?) ORDER BY id', [2, 3]),
      ]);
    });
    expect(updated.affected).toBe(1);
    expect(one).toEqual([{ label: 'uno' }]);
    expect(two).toEqual([{ label: 'two' }, { label: 'three' }]);
    if (kind === 'mysql') {
      expect(sent).toEqual([
        'START TRANSACTION;\nINSERT INTO items (id, label) VALUES (?, ?);\nUPDATE items SET label = ? WHERE id = ?;\nSELECT label FROM items WHERE id = ?;\nSELECT label FROM items WHERE id IN (?, ?) ORDER BY id',
        'COMMIT',
      ]);
    }
  });

  it('fails the statements asked for together when one of them fails, and the transaction with them', async () => {
    await db.exec('INSERT INTO items (id, label) VALUES (?, ?)', [1, 'one']);
    const outcomes: string[] = [];
    const failing = db.transaction(async () => {
      const asked = [
        db.exec('UPDATE items SET label = ? WHERE id = ?', ['changed', 1]),
        db.query('SELECT no_such_column FROM items'),
        db.query('SELECT label FROM items WHERE id = ?', [1]),
      ].map((p) => p.then(() => outcomes.push('answered'), () => outcomes.push('failed')));
      await Promise.all(asked);
      throw new Error('the transaction fails with its statement');
    });
    await expect(failing).rejects.toThrow('the transaction fails with its statement');
    expect(await labels()).toEqual(['1:one']);
    // MySQL sends the three together and the failure stops the rest; SQLite runs each by itself.
    expect(outcomes).toEqual(kind === 'mysql' ? ['failed', 'failed', 'failed'] : ['answered', 'failed', 'answered']);
  });

  it('never sends a locking read or a read in a transaction with others', async () => {
    await db.exec('INSERT INTO items (id, label) VALUES (?, ?)', [1, 'one']);
    sent = [];
    await Promise.all([db.query('SELECT label FROM items WHERE id = ?', [1]), db.transaction(() => db.query('SELECT label FROM items WHERE id = ?', [1]))]);
    if (kind === 'mysql') {
      expect(sent).toContain('SELECT label FROM items WHERE id = ?');
      expect(sent).toContain('START TRANSACTION;\nSELECT label FROM items WHERE id = ?');
      sent = [];
      await Promise.all([db.query('SELECT label FROM items WHERE id = ?', [1]), db.query('SELECT label FROM items WHERE id = ? FOR UPDATE', [1])]);
      expect(sent).toHaveLength(2);
    }
  });
});
