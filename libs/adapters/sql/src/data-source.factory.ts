import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DataSource, DataSourceOptions, Migration } from 'typeorm';
import type { AppConfig } from '../../../../config/load-config';
import { DomainError } from '../../../kernel/src';
import { markHeadersSealed } from './automations/typeorm-webhook-target.repository';
import { ALL_MIGRATIONS } from './migrations';
import { mysqlQueryFormat } from './mysql-query-format';
import { cutOffSlowStatements, type MysqlPool } from './mysql-statement-deadline';
import { TypeormDatabase } from './typeorm-database';
import { WalSync } from './wal-sync';

/** The line a start that applied migrations logs (the CLI writes it to stderr). */
export function migrationsAppliedLine(names: string[]): string {
  return `applied ${names.length} schema migration(s): ${names.join(', ')}`;
}

/**
 * Builds the TypeORM DataSource for the configured storage and brings its schema up to date,
 * telling `onMigrated` the names of the migrations this start applied (none: not called).
 */
export async function openDatabase(storage: AppConfig['storage'], onMigrated: (names: string[]) => void = () => undefined): Promise<TypeormDatabase> {
  const dataSource = await namingTheSetting(storage, async () => {
    const source = new DataSource(dataSourceOptions(storage));
    await source.initialize();
    return source;
  });
  const db =
    storage.kind === 'mysql' ? new TypeormDatabase(dataSource, 'mysql') : new TypeormDatabase(dataSource, 'sqlite', WalSync.forDatabase(resolve(storage.sqlitePath)));
  // A database no process ever migrated has no process of an earlier release either: its custom
  // headers are written sealed from the first (an upgraded one waits for `secrets reseal`).
  const fresh = !(await hasMigrationsTable(db));
  const applied = await runMigrations(db);
  if (fresh) await markHeadersSealed(db, Date.now());
  if (applied.length > 0) onMigrated(applied.map((migration) => migration.name));
  // After the migrations, whose statements (a table rebuilt, the migration lock) may rightly take long.
  if (storage.kind === 'mysql') cutOffSlowStatements((dataSource.driver as unknown as { pool: MysqlPool }).pool, storage.statementTimeoutMs);
  return db;
}

/**
 * A database that cannot be opened is `unavailable` and names its setting in the error: SQLITE_PATH
 * and the file, or DATABASE_URL and the server and database (never the password).
 */
async function namingTheSetting<T>(storage: AppConfig['storage'], open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (storage.kind === 'sqlite') throw new DomainError('unavailable', `SQLITE_PATH: cannot open the SQLite database ${resolve(storage.sqlitePath)}: ${reason}`);
    const url = new URL(storage.databaseUrl!);
    throw new DomainError('unavailable', `DATABASE_URL: cannot connect to the MySQL database ${url.host}${url.pathname}: ${reason}`);
  }
}

/** The page cache of each SQLite connection, in KiB. */
export const SQLITE_PAGE_CACHE_KIB = 16_384;

export function dataSourceOptions(storage: AppConfig['storage']): DataSourceOptions {
  const common = { migrations: ALL_MIGRATIONS, migrationsRun: false, synchronize: false, logging: false } as const;
  switch (storage.kind) {
    case 'sqlite': {
      const path = resolve(storage.sqlitePath);
      makeFolders(dirname(path));
      createPrivately(path);
      return {
        ...common,
        type: 'better-sqlite3',
        database: path,
        // Batched statements have one text per batch size (`IN (?, ?, …)`), a few hundred kinds in all:
        // TypeORM's default cache of 100 kept preparing them again (2 % of the server's CPU under load).
        statementCacheSize: 2_000,
        prepareDatabase: (db: { pragma(s: string): unknown }) => {
          db.pragma('journal_mode = WAL');
          // NORMAL alone may lose the last commits on power loss, i.e. events already answered 202:
          // every durable write waits for an fsync of the WAL after its commit (WalSync), which FULL
          // would run inside the commit, on the event loop.
          db.pragma('synchronous = NORMAL');
          db.pragma('busy_timeout = 5000');
          // Deleted and overwritten content is zeroed in the pages written anyway (no more I/O): an
          // old value (a custom header before it was sealed, a rotated-out secret) leaves no copy there.
          db.pragma('secure_delete = FAST');
          db.pragma('foreign_keys = ON');
          // SQLite's default page cache (2 MiB) no longer holds the hot index pages once the deliveries
          // and work items of a burst outgrow it, and statements read pages back from the OS: 16 MiB
          // raised batch intake by 7 % (alternated runs; by half while the machine ran slow), burst
          // deliveries by 1 % (test/bench/notes.md); mmap grew RSS with the file.
          db.pragma(`cache_size = -${SQLITE_PAGE_CACHE_KIB}`);
        },
      };
    }
    case 'mysql':
      return {
        ...common,
        type: 'mysql',
        url: storage.databaseUrl!,
        timezone: 'Z',
        charset: 'utf8mb4_unicode_ci',
        supportBigNumbers: true,
        bigNumberStrings: false,
        poolSize: 20,
        // trace: false, or mysql2 captures a stack trace for every query, in case it fails.
        // multipleStatements: TypeormDatabase sends several statements in one round trip (a transaction's
        // START with its first statement, its held writes with the next one or the COMMIT); every
        // statement of the project takes its values as placeholders.
        extra: { connectTimeout: 5000, enableKeepAlive: true, maxIdle: 10, trace: false, queryFormat: mysqlQueryFormat, multipleStatements: true },
      };
    default: {
      const exhaustive: never = storage.kind;
      throw new Error(`unknown storage ${String(exhaustive)}`);
    }
  }
}

/**
 * Migrations run at every start. On MySQL several processes may start together, so a named
 * lock makes them take turns; on SQLite the single writer lock does the same.
 */
async function runMigrations(db: TypeormDatabase): Promise<Migration[]> {
  if (db.dialect !== 'mysql') {
    // A migration that rebuilds a table frees its old pages: zeroed, they keep no copy of what it held.
    await db.query('PRAGMA secure_delete = ON');
    try {
      return await db.dataSource.runMigrations({ transaction: 'each' });
    } finally {
      await db.query('PRAGMA secure_delete = FAST');
    }
  }
  const runner = db.dataSource.createQueryRunner();
  try {
    await runner.connect();
    const [row] = await runner.query(`SELECT GET_LOCK('webhook_server_migrations', 120) AS got`);
    if (Number(row?.got) !== 1) throw new Error('could not take the migration lock within 120 s');
    try {
      return await db.dataSource.runMigrations({ transaction: 'none' });
    } finally {
      await runner.query(`SELECT RELEASE_LOCK('webhook_server_migrations')`);
    }
  } finally {
    await runner.release();
  }
}

async function hasMigrationsTable(db: TypeormDatabase): Promise<boolean> {
  const runner = db.dataSource.createQueryRunner();
  try {
    return await runner.hasTable(db.dataSource.options.migrationsTableName ?? 'migrations');
  } finally {
    await runner.release();
  }
}

/**
 * `mkdir -p` with mode 0700, one level at a time: Node's recursive mkdirSync loops forever, at full
 * CPU, on a path under /proc (the kernel answers ENOENT for the child and EEXIST for the parent).
 */
function makeFolders(path: string): void {
  if (existsSync(path)) return;
  const parent = dirname(path);
  if (parent !== path) makeFolders(parent);
  mkdirSync(path, { mode: 0o700 });
}

/**
 * A new SQLite file is for its owner alone (0600): it holds the sealed secrets and, while
 * SECRETS_KEY is unset, the key that opens them. SQLite gives the -wal and -shm files the mode of
 * the database file. An existing file keeps the mode its operator gave it.
 */
function createPrivately(path: string): void {
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}
