import { LeasedRows } from '../../libs/adapters/queue/src/leased-rows';
import { LEASE_WRITE, TypeormDatabase } from '../../libs/adapters/sql/src/typeorm-database';
import { openTestDatabase, TestDatabase } from '../support/databases';
import { serviceAvailable, TEST_MYSQL } from '../support/services';

/**
 * Lease writes (`{ durable: false }`): on SQLite they commit without syncing the WAL, every other
 * commit keeps synchronous=FULL. Each probe row records the synchronous level in force while the
 * statement that wrote it ran (SQLite's `pragma_synchronous()`): 2 is FULL, 1 NORMAL.
 */
describe('lease writes on SQLite', () => {
  let database: TestDatabase;
  let db: TypeormDatabase;
  const PROBE = 'INSERT INTO sync_probe (label, level) SELECT ?, synchronous FROM pragma_synchronous()';
  const levels = async () => Object.fromEntries((await db.query<{ label: string; level: number }>('SELECT label, level FROM sync_probe')).map((r) => [r.label, Number(r.level)]));
  const currentLevel = async () => Number((await db.query<{ synchronous: number }>('PRAGMA synchronous'))[0].synchronous);

  beforeAll(async () => {
    database = await openTestDatabase('sqlite');
    db = database.db;
    await db.exec('CREATE TABLE sync_probe (label TEXT PRIMARY KEY, level INTEGER NOT NULL)');
  });
  afterAll(() => database.drop());
  beforeEach(() => db.exec('DELETE FROM sync_probe'));

  it('commit a lease write without the WAL sync and every other write with it', async () => {
    await db.exec(PROBE, ['durable']);
    await db.exec(PROBE, ['lease'], LEASE_WRITE);
    await db.query(`${PROBE} RETURNING label`, ['lease, read back'], LEASE_WRITE);
    await db.exec(PROBE, ['durable after']);
    expect(await levels()).toEqual({ durable: 2, lease: 1, 'lease, read back': 1, 'durable after': 2 });
    expect(await currentLevel()).toBe(2);
  });

  it('keep a lease write inside a transaction as durable as the transaction', async () => {
    await db.transaction(async () => {
      await db.exec(PROBE, ['in a transaction'], LEASE_WRITE);
    });
    expect(await levels()).toEqual({ 'in a transaction': 2 });
  });

  it('never lend the relaxed level to a transaction waiting beside a lease write', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const transaction = db.transaction(async () => {
      await held;
      await db.exec(PROBE, ['transaction']);
    });
    const lease = db.exec(PROBE, ['lease'], LEASE_WRITE);
    const transactionAfter = db.transaction(() => db.exec(PROBE, ['transaction after']));
    release();
    await Promise.all([transaction, lease, transactionAfter]);
    expect(await levels()).toEqual({ transaction: 2, lease: 1, 'transaction after': 2 });
  });

  it('commit a redoable transaction without the WAL sync, and the transactions beside it with it', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const redoable = db.transaction(async () => {
      await held;
      await db.exec(PROBE, ['redoable']);
      await db.exec(PROBE, ['redoable, lease write'], LEASE_WRITE);
    }, { durable: false });
    const durable = db.transaction(() => db.exec(PROBE, ['durable']));
    const lease = db.exec(PROBE, ['lease'], LEASE_WRITE);
    release();
    await Promise.all([redoable, durable, lease]);
    expect(await levels()).toEqual({ redoable: 1, 'redoable, lease write': 1, durable: 2, lease: 1 });
    await db.transaction(() => db.transaction(() => db.exec(PROBE, ['joined a durable one']), { durable: false }));
    expect(await levels()).toMatchObject({ 'joined a durable one': 2 });
    await expect(db.transaction(() => db.exec(PROBE, ['durable']), { durable: false })).rejects.toThrow(/UNIQUE/);
    expect(await currentLevel()).toBe(2);
  });

  it('put the level back when the lease write fails', async () => {
    await db.exec(PROBE, ['taken']);
    await expect(db.exec(PROBE, ['taken'], LEASE_WRITE)).rejects.toThrow(/UNIQUE/);
    expect(await currentLevel()).toBe(2);
  });

  it('are what the queue rows use to claim, renew, release and acknowledge', async () => {
    const rows = new LeasedRows(db, { name: 'work_items', extraColumns: [] });
    const spy = jest.spyOn(db, 'exec');
    await rows.insert([{ id: 'wrk_probe_1', topic: 'probe', payload: '{}', dedupKey: null, availableAt: 0 }], 0);
    const [claimed] = await rows.claim('probe', 1, 1_000, 60_000);
    await rows.renew([claimed.id], claimed.token, 90_000);
    await rows.release([claimed.id], claimed.token, 2_000);
    const [again] = await rows.claim('probe', 1, 3_000, 60_000);
    await rows.completeMany([again]);
    const durability = spy.mock.calls.map(([sql, , options]) => [sql.split(' ').slice(0, 2).join(' '), options?.durable ?? true]);
    spy.mockRestore();
    expect(durability).toEqual([
      ['INSERT INTO', true],
      ['UPDATE work_items', false],
      ['UPDATE work_items', false],
      ['UPDATE work_items', false],
      ['UPDATE work_items', false],
      ['DELETE FROM', false],
    ]);
  });
});

describe('lease writes on MySQL', () => {
  let database: TestDatabase;
  let skip = false;

  beforeAll(async () => {
    skip = !(await serviceAvailable('MariaDB', TEST_MYSQL.host, TEST_MYSQL.port));
    if (skip) return;
    database = await openTestDatabase('mysql');
    await database.db.exec('CREATE TABLE lease_probe (label VARCHAR(40) PRIMARY KEY)');
  });
  afterAll(async () => {
    if (!skip) await database.drop();
  });

  it('are plain writes', async () => {
    if (skip) return;
    const { affected } = await database.db.exec('INSERT INTO lease_probe (label) VALUES (?)', ['lease'], LEASE_WRITE);
    expect(affected).toBe(1);
    expect(await database.db.query('SELECT label FROM lease_probe')).toEqual([{ label: 'lease' }]);
  });

  it('make redoable transactions plain transactions', async () => {
    if (skip) return;
    await database.db.transaction(() => database.db.exec('INSERT INTO lease_probe (label) VALUES (?)', ['redoable']), { durable: false });
    await expect(
      database.db.transaction(async () => {
        await database.db.exec('INSERT INTO lease_probe (label) VALUES (?)', ['rolled back']);
        throw new Error('fails');
      }, { durable: false }),
    ).rejects.toThrow('fails');
    expect(await database.db.query('SELECT label FROM lease_probe ORDER BY label')).toEqual([{ label: 'lease' }, { label: 'redoable' }]);
  });
});
