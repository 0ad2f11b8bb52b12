import { randomUUID } from 'node:crypto';
import { LeasedRows } from '../../libs/adapters/queue/src/leased-rows';
import { TypeormEventRepository } from '../../libs/adapters/sql/src/event-webhooks/typeorm-event.repository';
import { loadOrCreateInstallationKey } from '../../libs/adapters/sql/src/installation-key';
import { TypeormJobLease } from '../../libs/adapters/sql/src/job-lease/typeorm-job-lease';
import { TypeormDatabase } from '../../libs/adapters/sql/src/typeorm-database';
import { StoredEvent } from '../../libs/event-webhooks/src';
import { newId } from '../../libs/kernel/src';
import { openTestDatabase, TestDatabase } from '../support/databases';
import { serviceAvailable, TEST_MYSQL } from '../support/services';

/**
 * Inserts that skip a row already stored skip only that: a duplicate key. INSERT IGNORE (MySQL) and
 * INSERT OR IGNORE (SQLite) also turned real errors into warnings or silently dropped rows (a value
 * too long truncated, a NULL in a NOT NULL column replaced or the row dropped); every such insert
 * now fails on them, and the inserts still tell exactly which rows were new.
 */
describe.each(['sqlite', 'mysql'] as const)('inserts that skip duplicates (%s)', (kind) => {
  let database: TestDatabase;
  let db: TypeormDatabase;
  let skip = false;
  const now = new Date('2025-11-22T02:00:00.000Z');

  beforeAll(async () => {
    skip = kind === 'mysql' && !(await serviceAvailable('MariaDB', TEST_MYSQL.host, TEST_MYSQL.port));
    if (skip) return;
    database = await openTestDatabase(kind);
    db = database.db;
  });
  afterAll(async () => {
    if (!skip) await database.drop();
  });

  const event = (accountId: number, id = newId('evt'), overrides: Partial<StoredEvent> = {}): StoredEvent => ({
    id,
    accountId,
    type: 'email.delivered',
    created: 1732238400,
    receivedAt: now,
    bodies: { v3: `{"id":"${id}"}` },
    ...overrides,
  });

  it('counts exactly the rows inserted, duplicates skipped in the statement and against stored rows', async () => {
    if (skip) return;
    const insert = (names: string[]) =>
      db.insertSkippingDuplicates(
        `INSERT INTO installation_settings (name, value, created_at) VALUES ${names.map(() => '(?, ?, ?)').join(', ')}`,
        names.flatMap((name) => [name, 'v', 1]),
        'name',
      );
    expect(await insert(['a', 'b', 'a'])).toBe(2);
    expect(await insert(['a', 'c'])).toBe(1);
    expect(await insert(['a', 'b', 'c'])).toBe(0);
    // One row: MySQL sends no summary for it; the insert id tells instead.
    expect(await insert(['d'])).toBe(1);
    expect(await insert(['d'])).toBe(0);
    expect(await insert(['e'])).toBe(1);
    const rows = await db.query<{ name: string }>("SELECT name FROM installation_settings WHERE name IN ('a', 'b', 'c', 'd', 'e') ORDER BY name");
    expect(rows.map((r) => r.name)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('event intake reports which ids were new, one event or many, repeated within a batch or already stored', async () => {
    if (skip) return;
    const events = new TypeormEventRepository(db);
    const accountId = 7;
    const first = event(accountId);
    expect(await events.insertNew([first])).toEqual(new Set([`${accountId}/${first.id}`]));
    expect(await events.insertNew([first])).toEqual(new Set());
    const second = event(accountId);
    const third = event(accountId);
    expect(await events.insertNew([first, second, second, third])).toEqual(new Set([`${accountId}/${second.id}`, `${accountId}/${third.id}`]));
    expect(await events.insertNew([third, second])).toEqual(new Set());
    expect(await events.insertNew([event(accountId + 1, first.id)])).toEqual(new Set([`${accountId + 1}/${first.id}`]));
  });

  it('event intake of one event, new or repeated, is one statement', async () => {
    if (skip) return;
    const events = new TypeormEventRepository(db);
    const statements = jest.spyOn(db, 'exec');
    try {
      const lone = event(10);
      expect(await events.insertNew([lone])).toEqual(new Set([`10/${lone.id}`]));
      expect(await events.insertNew([lone])).toEqual(new Set());
      expect(statements).toHaveBeenCalledTimes(2);
    } finally {
      statements.mockRestore();
    }
  });

  it('event intake fails on a NULL in a NOT NULL column instead of dropping or blanking the event', async () => {
    if (skip) return;
    const events = new TypeormEventRepository(db);
    const bad = event(8, newId('evt'), { type: null as unknown as string });
    await expect(events.insertNew([bad])).rejects.toThrow();
    await expect(events.insertNew([event(8), bad])).rejects.toThrow();
    expect(await db.query('SELECT id FROM events WHERE id = ?', [bad.id])).toEqual([]);
  });

  it('fails on a value too long for its column instead of truncating it (MariaDB, strict mode)', async () => {
    if (skip || kind !== 'mysql') return;
    const events = new TypeormEventRepository(db);
    const long = event(9, newId('evt'), { type: `email.${'x'.repeat(100)}` });
    await expect(events.insertNew([long])).rejects.toThrow(/too long/i);
    await expect(events.insertNew([event(9), long])).rejects.toThrow(/too long/i);
    expect(await db.query('SELECT id FROM events WHERE id = ?', [long.id])).toEqual([]);

    const lease = new TypeormJobLease(db);
    await expect(lease.acquire('too-long-holder', 'h'.repeat(100), now, 60_000)).rejects.toThrow(/too long/i);
    expect(await db.query("SELECT holder FROM job_leases WHERE name = 'too-long-holder'")).toEqual([]);

    const rows = new LeasedRows(db, { name: 'work_items', extraColumns: [] });
    const item = { id: randomUUID(), topic: 't'.repeat(100), payload: '{}', dedupKey: 'k1', availableAt: now.getTime() };
    await expect(rows.insert([item], now.getTime())).rejects.toThrow(/too long/i);
    expect(await db.query('SELECT id FROM work_items WHERE id = ?', [item.id])).toEqual([]);
  });

  it('queue rows with a dedup key: a repeated key is skipped, a bad row fails', async () => {
    if (skip) return;
    const rows = new LeasedRows(db, { name: 'work_items', extraColumns: [] });
    const item = (dedupKey: string, payload: string | null = '{}') => ({ id: randomUUID(), topic: 'dedup-test', payload: payload as string, dedupKey, availableAt: now.getTime() });
    await rows.insert([item('k1'), item('k2')], now.getTime());
    await rows.insert([item('k1'), item('k3')], now.getTime());
    const stored = await db.query<{ dedup_key: string }>("SELECT dedup_key FROM work_items WHERE topic = 'dedup-test' ORDER BY dedup_key");
    expect(stored.map((r) => r.dedup_key)).toEqual(['k1', 'k2', 'k3']);
    await expect(rows.insert([item('k4', null)], now.getTime())).rejects.toThrow();
    expect(await db.query("SELECT id FROM work_items WHERE dedup_key = 'k4'")).toEqual([]);
  });

  it('job lease: taken by one of two holders racing for a new name, then by the holder alone', async () => {
    if (skip) return;
    const lease = new TypeormJobLease(db);
    const other = kind === 'mysql' ? new TypeormJobLease(await database.connect()) : lease;
    const results = await Promise.all([lease.acquire('race', 'a', now, 60_000), other.acquire('race', 'b', now, 60_000)]);
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = results[0] ? 'a' : 'b';
    const [row] = await db.query<{ holder: string }>("SELECT holder FROM job_leases WHERE name = 'race'");
    expect(row.holder).toBe(winner);
    expect(await lease.acquire('race', winner === 'a' ? 'b' : 'a', now, 60_000)).toBe(false);
  });

  it('the installation key is created once and kept', async () => {
    if (skip) return;
    const first = await loadOrCreateInstallationKey(db, 1);
    const again = await loadOrCreateInstallationKey(db, 2);
    expect(again.equals(first)).toBe(true);
  });
});
