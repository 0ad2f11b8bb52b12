import { LeasedRows } from '../../libs/adapters/queue/src/leased-rows';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LEASE_WRITE, TypeormDatabase } from '../../libs/adapters/sql/src/typeorm-database';
import { WalSync } from '../../libs/adapters/sql/src/wal-sync';
import { openTestDatabase, TestDatabase } from '../support/databases';
import { serviceAvailable, TEST_MYSQL } from '../support/services';

/**
 * Durability on SQLite: a durable write returns only after an fsync of the WAL that began after its
 * commit (WalSync, off the event loop), a lease write (`{ durable: false }`) and a redoable
 * transaction return at once, and reads never wait for a sync. The syncs are counted and held by a
 * WalSync over a gate, on a real database file.
 */
describe('lease writes on SQLite', () => {
  let database: TestDatabase;
  let db: TypeormDatabase;
  let syncs: number;
  let gate: { open(): void; wait: Promise<void> } | null;

  const holdSyncs = () => {
    let open!: () => void;
    const wait = new Promise<void>((resolve) => (open = resolve));
    gate = { open, wait };
    return gate;
  };
  /** What has settled of `promise` after the event loop turned a few times. */
  const settledSoon = async (promise: Promise<unknown>) => {
    let settled = false;
    void promise.then(
      () => (settled = true),
      () => (settled = true),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    return settled;
  };

  beforeAll(async () => {
    database = await openTestDatabase('sqlite');
    const sync = new WalSync(async () => {
      syncs++;
      if (gate) await gate.wait;
    });
    db = new TypeormDatabase(database.db.dataSource, 'sqlite', sync);
    await db.exec('CREATE TABLE sync_probe (label TEXT PRIMARY KEY)');
  });
  afterAll(() => database.drop());
  beforeEach(async () => {
    gate = null;
    await db.exec('DELETE FROM sync_probe');
    syncs = 0;
  });

  it('return a durable write only once a WAL sync after its commit has ended', async () => {
    const held = holdSyncs();
    const write = db.exec('INSERT INTO sync_probe (label) VALUES (?)', ['durable']);
    expect(await settledSoon(write)).toBe(false);
    // Committed already (other statements run while the sync is under way), not yet answered.
    expect(await db.query('SELECT label FROM sync_probe')).toEqual([{ label: 'durable' }]);
    held.open();
    await write;
    expect(syncs).toBe(1);
  });

  it('return lease writes and reads without a sync', async () => {
    holdSyncs();
    await db.exec('INSERT INTO sync_probe (label) VALUES (?)', ['lease'], LEASE_WRITE);
    await db.query('INSERT INTO sync_probe (label) VALUES (?) RETURNING label', ['lease, read back'], LEASE_WRITE);
    await db.query('SELECT label FROM sync_probe');
    await db.exec('DELETE FROM sync_probe WHERE label = ?', ['none such']);
    expect(syncs).toBe(0);
  });

  it('return a durable transaction after the sync, and run its after-commit work after it too', async () => {
    const held = holdSyncs();
    const order: string[] = [];
    const transaction = db
      .transaction(async () => {
        await db.exec('INSERT INTO sync_probe (label) VALUES (?)', ['in a transaction'], LEASE_WRITE);
        db.afterCommit(() => void order.push('after commit'));
      })
      .then(() => order.push('returned'));
    expect(await settledSoon(transaction)).toBe(false);
    expect(order).toEqual([]);
    held.open();
    await transaction;
    expect(order).toEqual(['after commit', 'returned']);
    expect(syncs).toBe(1);
  });

  it('return a redoable transaction without a sync, even one joined by a durable write', async () => {
    holdSyncs();
    await db.transaction(async () => {
      await db.exec('INSERT INTO sync_probe (label) VALUES (?)', ['redoable']);
    }, { durable: false });
    expect(syncs).toBe(0);
  });

  it('share one sync among the commits that waited for it, and give a commit made during a sync the next', async () => {
    const tick = () => new Promise((resolve) => setTimeout(resolve, 20));
    const write = (label: string) => db.exec('INSERT INTO sync_probe (label) VALUES (?)', [label]);
    const first = holdSyncs();
    const alone = write('alone');
    await tick();
    const together = ['together 1', 'together 2', 'together 3'].map(write);
    await tick();
    expect(syncs).toBe(1);
    const second = holdSyncs();
    first.open();
    await alone;
    await tick();
    expect(syncs).toBe(2);
    const late = write('late');
    expect(await settledSoon(late)).toBe(false);
    second.open();
    await Promise.all([...together, late]);
    expect(syncs).toBe(3);
  });

  it('answer a failed sync as storage unavailable', async () => {
    const failing = new TypeormDatabase(
      database.db.dataSource,
      'sqlite',
      new WalSync(() => Promise.reject(Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' }))),
    );
    await expect(failing.exec('INSERT INTO sync_probe (label) VALUES (?)', ['unsynced'])).rejects.toMatchObject({ code: 'unavailable' });
    await expect(failing.exec('INSERT INTO sync_probe (label) VALUES (?)', ['lease'], LEASE_WRITE)).resolves.toBeDefined();
  });

  it('sync the real WAL file of a database opened for the server', async () => {
    await database.db.exec('CREATE TABLE IF NOT EXISTS real_probe (label TEXT PRIMARY KEY)');
    await database.db.exec('INSERT INTO real_probe (label) VALUES (?)', ['synced']);
    expect(await database.db.query('PRAGMA synchronous')).toEqual([{ synchronous: 1 }]);
    await expect(WalSync.forDatabase(join(tmpdir(), 'no-such-folder', 'none.db')).durable()).resolves.toBeUndefined();
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
    expect(syncs).toBe(1);
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
