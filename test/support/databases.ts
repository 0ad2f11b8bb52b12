import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import type { AppConfig } from '../../config/load-config';
import { openDatabase } from '../../libs/adapters/sql/src/data-source.factory';
import { TypeormDatabase } from '../../libs/adapters/sql/src/typeorm-database';
import { TEST_MYSQL } from './services';

export { requireService, TEST_MYSQL, TEST_NATS } from './services';

export interface TestDatabase {
  /** The first connection, migrated. */
  db: TypeormDatabase;
  storage: AppConfig['storage'];
  /** Another connection to the same database, like a second process would open. */
  connect(): Promise<TypeormDatabase>;
  /** Closes every connection opened here and deletes the database. */
  drop(): Promise<void>;
}

export interface MysqlServer {
  host: string;
  port: number;
  user: string;
  /** mysql://user@host:port, without a database. */
  url: string;
}

/** Creates an empty MariaDB database `<prefix>_<random>` (on the test server unless told); `drop()` deletes it. */
export async function createMysqlDatabase(
  prefix: string,
  server: MysqlServer = TEST_MYSQL,
  charset = 'utf8mb4 COLLATE utf8mb4_unicode_ci',
): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = () => createConnection({ host: server.host, port: server.port, user: server.user });
  const connection = await admin();
  await connection.query(`CREATE DATABASE \`${name}\` CHARACTER SET ${charset}`);
  await connection.end();
  return {
    url: `${server.url}/${name}`,
    name,
    drop: async () => {
      const c = await admin();
      await c.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await c.end();
    },
  };
}

/** A fresh, migrated database: a temp SQLite file, or `wh_test_<random>` on the test MariaDB. */
export async function openTestDatabase(kind: 'sqlite' | 'mysql'): Promise<TestDatabase> {
  let storage: AppConfig['storage'];
  let cleanUp: () => Promise<void>;
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'wh-test-'));
    storage = { kind: 'sqlite', sqlitePath: join(dir, 'service.db'), databaseUrl: null, statementTimeoutMs: 10_000 };
    cleanUp = async () => rmSync(dir, { recursive: true, force: true });
  } else {
    const database = await createMysqlDatabase('wh_test');
    storage = { kind: 'mysql', sqlitePath: '', databaseUrl: database.url, statementTimeoutMs: 10_000 };
    cleanUp = database.drop;
  }
  const opened: TypeormDatabase[] = [];
  const connect = async () => {
    const db = await openDatabase(storage);
    opened.push(db);
    return db;
  };
  const db = await connect();
  return {
    db,
    storage,
    connect,
    drop: async () => {
      for (const each of opened) if (each.dataSource.isInitialized) await each.dataSource.destroy().catch(() => undefined);
      await cleanUp();
    },
  };
}


/**
 * The same database seen by a process that can die: once `kill()` is called every statement
 * fails, as if its connection had dropped. Lets several simulated processes share one SQLite
 * connection: two better-sqlite3 connections in one thread would block each other, since a
 * busy wait stops the very event loop the other transaction needs to commit.
 */
export function killableView(db: TypeormDatabase): { db: TypeormDatabase; kill(): void } {
  let dead = false;
  const failing = new Set<PropertyKey>(['exec', 'query', 'transaction', 'withManager', 'ping']);
  const view = new Proxy(db, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (failing.has(property)) {
        return (...args: unknown[]) => (dead ? Promise.reject(new Error('this process is dead')) : (value as (...a: unknown[]) => unknown).apply(target, args));
      }
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  });
  return {
    db: view,
    kill: () => {
      dead = true;
    },
  };
}
