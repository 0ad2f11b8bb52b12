import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import type { AppConfig } from '../../config/load-config';
import { openDatabase } from '../../libs/adapters/typeorm/src/data-source.factory';
import { TypeormDatabase } from '../../libs/adapters/typeorm/src/typeorm-database';

/** Server the MySQL-profile suites use; each run gets its own fresh database on it. */
export const TEST_MYSQL = { host: '127.0.0.1', port: 3306, user: 'root' };
export const TEST_NATS = { host: '127.0.0.1', port: 4222, url: 'nats://127.0.0.1:4222' };

export interface TestDatabase {
  /** The first connection, migrated. */
  db: TypeormDatabase;
  storage: AppConfig['storage'];
  /** Another connection to the same database, like a second process would open. */
  connect(): Promise<TypeormDatabase>;
  /** Closes every connection opened here and deletes the database. */
  drop(): Promise<void>;
}

/** A fresh, migrated database: a temp SQLite file, or `wh_test_<random>` on the test MariaDB. */
export async function openTestDatabase(kind: 'sqlite' | 'mysql'): Promise<TestDatabase> {
  let storage: AppConfig['storage'];
  let cleanUp: () => Promise<void>;
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'wh-test-'));
    storage = { kind: 'sqlite', sqlitePath: join(dir, 'service.db'), databaseUrl: null };
    cleanUp = async () => rmSync(dir, { recursive: true, force: true });
  } else {
    const name = `wh_test_${randomBytes(6).toString('hex')}`;
    const admin = () => createConnection({ host: TEST_MYSQL.host, port: TEST_MYSQL.port, user: TEST_MYSQL.user });
    const connection = await admin();
    await connection.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    await connection.end();
    storage = { kind: 'mysql', sqlitePath: '', databaseUrl: `mysql://${TEST_MYSQL.user}@${TEST_MYSQL.host}:${TEST_MYSQL.port}/${name}` };
    cleanUp = async () => {
      const c = await admin();
      await c.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await c.end();
    };
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
 * True when something answers on host:port. Otherwise: with CI set, registers a failing test
 * that says what is missing; without it, warns and returns false so the caller skips its suite.
 * Synchronous on purpose, so it can decide between `describe` and `describe.skip`.
 */
export function requireService(name: string, host: string, port: number): boolean {
  const probe = `const s=require('net').connect(${port},${JSON.stringify(host)});s.setTimeout(1500);s.on('connect',()=>process.exit(0));s.on('error',()=>process.exit(1));s.on('timeout',()=>process.exit(1));`;
  const result = spawnSync(process.execPath, ['-e', probe], { timeout: 5_000 });
  if (result.status === 0) return true;
  const message = `${name} is not reachable at ${host}:${port}`;
  if (process.env.CI) {
    test(`${name} at ${host}:${port} is available`, () => {
      throw new Error(`${message}; CI is set, so the suites that need it fail instead of being skipped`);
    });
  } else {
    console.warn(`${message}: skipping the suites that need it (set CI=1 to make this a failure)`);
  }
  return false;
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
