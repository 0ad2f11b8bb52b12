import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, SQLITE_PAGE_CACHE_KIB } from './data-source.factory';
import { ALL_MIGRATIONS } from './migrations';

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe('SQLite files', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'wh-mode-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates the database, its WAL and its folder for their owner alone', async () => {
    const sqlitePath = join(dir, 'data', 'service.db');
    const db = await openDatabase({ kind: 'sqlite', sqlitePath, databaseUrl: null, statementTimeoutMs: 10_000 });
    try {
      await db.exec('CREATE TABLE mode_check (id INTEGER)');
      expect(modeOf(join(dir, 'data'))).toBe(0o700);
      expect(modeOf(sqlitePath)).toBe(0o600);
      expect(modeOf(`${sqlitePath}-wal`)).toBe(0o600);
    } finally {
      await db.dataSource.destroy();
    }
  });

  it('gives each connection a page cache of its own size (SQLite counts KiB as a negative number)', async () => {
    const db = await openDatabase({ kind: 'sqlite', sqlitePath: join(dir, 'cache.db'), databaseUrl: null, statementTimeoutMs: 10_000 });
    try {
      expect(await db.query('PRAGMA cache_size')).toEqual([{ cache_size: -SQLITE_PAGE_CACHE_KIB }]);
    } finally {
      await db.dataSource.destroy();
    }
  });

  it('leaves the mode of an existing database as its operator set it', async () => {
    const sqlitePath = join(dir, 'shared.db');
    writeFileSync(sqlitePath, '');
    chmodSync(sqlitePath, 0o640);
    const db = await openDatabase({ kind: 'sqlite', sqlitePath, databaseUrl: null, statementTimeoutMs: 10_000 });
    await db.dataSource.destroy();
    expect(modeOf(sqlitePath)).toBe(0o640);
  });
});

describe('schema migrations', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'wh-migrations-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('tells which migrations a start applied, every one on a new database and none on the next start', async () => {
    const storage = { kind: 'sqlite' as const, sqlitePath: join(dir, 'service.db'), databaseUrl: null, statementTimeoutMs: 10_000 };
    const applied: string[][] = [];
    await (await openDatabase(storage, (names) => applied.push(names))).dataSource.destroy();
    expect(applied).toEqual([ALL_MIGRATIONS.map((migration) => migration.name)]);
    await (await openDatabase(storage, (names) => applied.push(names))).dataSource.destroy();
    expect(applied).toHaveLength(1);
  });
});
