import { AsyncLocalStorage } from 'node:async_hooks';
import { DataSource, EntityManager, QueryResult } from 'typeorm';
import { DomainError, REDOABLE, type UnitOfWorkOptions } from '../../../kernel/src';
import { CoalescedReads, isPlainRead } from './coalesced-reads';
import { Mutex } from './mutex';
import type { WalSync } from './wal-sync';

export type Dialect = 'sqlite' | 'mysql';

interface TxContext {
  manager: EntityManager;
  afterCommit: Array<() => void | Promise<void>>;
  /** MySQL only: what has not been sent yet. SQLite sends each statement at once (no round trips). */
  unsent?: Unsent;
  /** SQLite only: the last statement asked for, which the next one waits for. */
  turn?: Promise<unknown>;
}

/** A MySQL transaction's statements held back to travel with the next one sent. */
interface Unsent {
  /** Whether START TRANSACTION has been sent (it goes with the first statement). */
  begun: boolean;
  /** The writes whose answer nobody reads (`write`), sent with the next statement or the COMMIT. */
  held: Statement[];
  /** About how many bytes the held writes take (their text and string values). */
  heldBytes: number;
  /** Statements asked for in the current turn of the event loop, sent together at its end. */
  asked: Asked[];
}

/** Statements of one `execAll` in a MySQL transaction, waiting for the round trip that takes them. */
interface Asked {
  statements: Statement[];
  resolve(results: Array<ExecResult<unknown>>): void;
  reject(error: unknown): void;
}

/** One SQL statement and its parameters. */
export interface Statement {
  sql: string;
  params: unknown[];
}

/**
 * Held writes beyond this many bytes are sent at once: statements sent together travel in one packet,
 * and MySQL refuses one above max_allowed_packet (16 MB by default). A batch's chunks of rows stay
 * below it this way, whatever the statement they go with adds.
 */
const HELD_BYTES_LIMIT = 1 << 20;

const START: Statement = { sql: 'START TRANSACTION', params: [] };
const COMMIT: Statement = { sql: 'COMMIT', params: [] };

export interface ExecResult<T> {
  rows: T[];
  affected: number;
  /** Auto-increment id of an INSERT, when the table has one. */
  insertId: number | null;
  /** MySQL's summary line of the statement, when it sent one ("Records: 3  Duplicates: 1  Warnings: 0"). */
  info: string | null;
}

/**
 * A statement's or a transaction's durability, the kernel's UnitOfWorkOptions. On SQLite a durable
 * write outside an open transaction returns once the WAL has been synced after its commit (WalSync);
 * `durable: false` returns at once, and the next sync covers it with the commits before it, in WAL
 * order, so nothing durable ever depends on it. Elsewhere it changes nothing.
 */
export type ExecOptions = UnitOfWorkOptions;

/** A lease taken, renewed or given back, a queue item acknowledged, a delivery claimed: lost, only work is done again. */
export const LEASE_WRITE: ExecOptions = REDOABLE;

/** The better-sqlite3 connection behind TypeORM's driver: whether a statement wrote is its change count. */
interface RawSqlite {
  prepare(source: string): { pluck(): { get(): unknown } };
}

/**
 * The one handle every TypeORM repository goes through. It joins the ambient transaction (kept
 * in AsyncLocalStorage so domain code never sees a manager) and, on SQLite, serialises access:
 * TypeORM shares a single better-sqlite3 connection, so an unrelated query issued while a
 * transaction is open would otherwise run inside it.
 */
export class TypeormDatabase {
  private readonly context = new AsyncLocalStorage<TxContext>();
  private readonly sqliteLock = new Mutex();
  private changeCount: { get(): unknown } | undefined;
  private readonly reads = new CoalescedReads<Statement, ExecResult<unknown>>(
    (statements) => this.withManager((manager) => runStatements(manager, this.dataSource, statements, this.dialect)),
    (error) => error instanceof DomainError && error.code === 'unavailable',
  );

  constructor(
    readonly dataSource: DataSource,
    readonly dialect: Dialect,
    /** SQLite on a file: what makes its commits durable (none: commits are as durable as SQLite makes them). */
    private readonly walSync: WalSync | null = null,
  ) {}

  /** Runs one statement in the ambient transaction if any. */
  async exec<T = Record<string, unknown>>(sql: string, params: unknown[] = [], options: ExecOptions = {}): Promise<ExecResult<T>> {
    return (await this.execAll<T>([{ sql, params }], options))[0];
  }

  /**
   * Runs `statements` in order, in the ambient transaction if any, and returns each one's result.
   * On MySQL they travel in one round trip (a multi-statement query; the first that fails stops the
   * rest, and outside a transaction each commits by itself as it runs); on SQLite one by one.
   */
  async execAll<T = Record<string, unknown>>(statements: Statement[], options: ExecOptions = {}): Promise<Array<ExecResult<T>>> {
    const durable = options.durable ?? true;
    const tx = this.context.getStore();
    if (!tx && this.dialect === 'mysql' && statements.length === 1 && isPlainRead(statements[0].sql)) {
      return [(await this.reads.read(statements[0])) as ExecResult<T>];
    }
    return this.withManager(
      (manager) => {
        if (tx?.unsent) return this.sendInTransaction<T>(manager, tx.unsent, statements);
        if (tx) return inTurn(tx, () => runStatements<T>(manager, this.dataSource, statements, this.dialect));
        return runStatements<T>(manager, this.dataSource, statements, this.dialect);
      },
      durable,
    );
  }

  /**
   * A write whose answer nobody reads. Inside a MySQL transaction it is held back and sent with the
   * transaction's next statement or its COMMIT, in order, saving a round trip; should it fail, the
   * statement it went with fails with its error, so use it only for writes whose failure fails the
   * transaction. Elsewhere it runs at once.
   */
  async write(sql: string, params: unknown[] = []): Promise<void> {
    const tx = this.context.getStore();
    if (tx?.unsent) {
      const unsent = tx.unsent;
      unsent.held.push({ sql, params });
      unsent.heldBytes += sql.length + params.reduce<number>((n, p) => n + (typeof p === 'string' ? p.length : 8), 0);
      if (unsent.heldBytes > HELD_BYTES_LIMIT) await this.sendInTransaction(tx.manager, unsent, []);
      return;
    }
    await this.exec(sql, params);
  }

  /**
   * Sends START TRANSACTION if not yet sent, the held writes and `statements`, in one round trip,
   * with the statements that the transaction's other concurrent work asks for in the same turn of the
   * event loop (two reads awaited together cost one round trip). Statements that travel together fail
   * together: the first that fails stops the rest, and each caller gets its error.
   */
  private sendInTransaction<T>(manager: EntityManager, unsent: Unsent, statements: Statement[]): Promise<Array<ExecResult<T>>> {
    return new Promise<Array<ExecResult<T>>>((resolve, reject) => {
      unsent.asked.push({ statements, resolve: resolve as Asked['resolve'], reject });
      if (unsent.asked.length === 1) queueMicrotask(() => void this.sendAsked(manager, unsent));
    });
  }

  private async sendAsked(manager: EntityManager, unsent: Unsent): Promise<void> {
    const asked = unsent.asked.splice(0);
    const all = [...(unsent.begun ? [] : [START]), ...unsent.held.splice(0), ...asked.flatMap((a) => a.statements)];
    unsent.begun = true;
    unsent.heldBytes = 0;
    try {
      const results = await runStatements<unknown>(manager, this.dataSource, all, this.dialect);
      let end = results.length;
      for (let i = asked.length - 1; i >= 0; i--) {
        const start = end - asked[i].statements.length;
        asked[i].resolve(results.slice(start, end));
        end = start;
      }
    } catch (error) {
      for (const each of asked) each.reject(error);
    }
  }

  async query<T = Record<string, unknown>>(sql: string, params: unknown[] = [], options: ExecOptions = {}): Promise<T[]> {
    return (await this.exec<T>(sql, params, options)).rows;
  }

  /**
   * `column` in a condition beside a lookup by a list of keys, kept out of the index choice. Without
   * ANALYZE statistics SQLite prefers an index on such a column (a status, an account) to a key list
   * of ten ids or more, and so read every waiting delivery to claim thirty of them; a unary `+` is
   * SQLite's way to keep a term off its index. MySQL plans these by the key and gets the column as is.
   */
  filterOnly(column: string): string {
    return this.dialect === 'sqlite' ? `+${column}` : column;
  }

  async withManager<T>(work: (manager: EntityManager) => Promise<T>, durable = true): Promise<T> {
    const tx = this.context.getStore();
    if (tx) return translateErrors(() => work(tx.manager));
    if (this.dialect === 'sqlite') return this.sqliteCommit(() => translateErrors(() => work(this.dataSource.manager)), durable);
    // One statement outside a transaction is a transaction of its own: a deadlock rolled all of it
    // back, so it runs again as if it had come later (a relay's DELETE beside another's claim did).
    return retryOnDeadlock(() => translateErrors(() => work(this.dataSource.manager)));
  }

  /**
   * Runs `work` (statements outside any open transaction, or one transaction) under the SQLite lock;
   * if it wrote and is durable, returns once the WAL is synced. The lock is not held for the sync:
   * the statements after it run meanwhile, and the commits of the moment share one sync.
   */
  private async sqliteCommit<T>(work: () => Promise<T>, durable: boolean): Promise<T> {
    let wrote = false;
    const result = await this.sqliteLock.run(async () => {
      const before = this.sqliteChanges();
      try {
        return await work();
      } finally {
        wrote = this.sqliteChanges() !== before;
      }
    });
    if (durable && wrote && this.walSync) {
      try {
        await this.walSync.durable();
      } catch {
        throw new DomainError('unavailable', 'storage is unavailable: the write could not be synced to disk');
      }
    }
    return result;
  }

  /** Rows this SQLite connection has inserted, updated or deleted since it opened (-1 once it is closed: nothing more is written). */
  private sqliteChanges(): number {
    try {
      this.changeCount ??= (this.dataSource.driver as unknown as { databaseConnection: RawSqlite }).databaseConnection.prepare('SELECT total_changes()').pluck();
      return Number(this.changeCount.get());
    } catch {
      return -1;
    }
  }

  /**
   * Runs `work` in one transaction, or in the caller's if one is open (which keeps its own
   * durability); `durable: false` as for ExecOptions.
   */
  async transaction<T>(work: () => Promise<T>, options: ExecOptions = {}): Promise<T> {
    if (this.context.getStore()) return work();
    const callbacks: TxContext['afterCommit'] = [];
    const result =
      this.dialect === 'sqlite'
        ? await this.sqliteCommit(
            () =>
              translateErrors(() =>
                this.dataSource.transaction((manager) => {
                  callbacks.length = 0;
                  return this.context.run({ manager, afterCommit: callbacks, turn: Promise.resolve() }, work);
                }),
              ),
            options.durable ?? true,
          )
        : await retryOnDeadlock(() =>
            translateErrors(() => {
              callbacks.length = 0;
              return this.mysqlTransaction(work, callbacks);
            }),
          );
    for (const callback of callbacks) {
      try {
        await callback();
      } catch {
        // After-commit hooks are best-effort accelerators (e.g. an immediate queue hand-over);
        // whatever they fail to do is picked up by the relay.
      }
    }
    return result;
  }

  /**
   * A MySQL transaction that saves round trips: START TRANSACTION goes with its first statement and
   * COMMIT with its last held writes (a transaction that ran nothing sends nothing).
   */
  private async mysqlTransaction<T>(work: () => Promise<T>, afterCommit: TxContext['afterCommit']): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    const unsent: Unsent = { begun: false, held: [], heldBytes: 0, asked: [] };
    try {
      const result = await this.context.run({ manager: runner.manager, afterCommit, unsent }, work);
      if (unsent.begun || unsent.held.length > 0) await this.sendInTransaction(runner.manager, unsent, [COMMIT]);
      return result;
    } catch (error) {
      if (unsent.begun) {
        try {
          await runner.query('ROLLBACK');
        } catch {
          // The connection is gone, and MySQL rolled the transaction back with it.
        }
      }
      throw error;
    } finally {
      await runner.release();
    }
  }

  afterCommit(callback: () => void | Promise<void>): void {
    const tx = this.context.getStore();
    if (tx) {
      tx.afterCommit.push(callback);
      return;
    }
    void Promise.resolve()
      .then(callback)
      .catch(() => undefined);
  }

  inTransaction(): boolean {
    return this.context.getStore() !== undefined;
  }

  /**
   * The clause that ends an `INSERT INTO t (...) VALUES ...` so that a row whose key is already
   * stored is skipped, and nothing else is: `INSERT IGNORE` (MySQL) would also turn a value too long,
   * a NULL in a NOT NULL column or a bad foreign key into a warning and store something else, and
   * `INSERT OR IGNORE` (SQLite) would silently drop such a row. Never use INSERT IGNORE. On MySQL a
   * duplicate gets a no-op update of `keyColumn` (a column of the table's primary key), which also
   * calls LAST_INSERT_ID(1): MySQL returns that 1 as the statement's insert id, the only sign that
   * a one-row insert skipped its row (see insertSkippingDuplicates).
   */
  skipDuplicates(keyColumn: string): string {
    return this.dialect === 'mysql' ? ` ON DUPLICATE KEY UPDATE ${keyColumn} = IF(LAST_INSERT_ID(1), ${keyColumn}, ${keyColumn})` : ' ON CONFLICT DO NOTHING';
  }

  /**
   * Runs `insert` (an `INSERT ... VALUES ...` into a table without AUTO_INCREMENT) ending in
   * skipDuplicates(keyColumn) and returns how many rows went in. SQLite counts inserted rows only.
   * mysql2 connects with CLIENT_FOUND_ROWS, so MySQL's affectedRows counts a skipped duplicate like
   * an inserted row; a multi-row INSERT says it in its summary ("Records: N  Duplicates: D", D
   * counting every row that met a stored key), which MySQL does not send for a single row: for that
   * one the insert id tells (1 skipped, 0 inserted).
   */
  async insertSkippingDuplicates(insert: string, params: unknown[], keyColumn: string): Promise<number> {
    const result = await this.exec(`${insert}${this.skipDuplicates(keyColumn)}`, params);
    if (this.dialect !== 'mysql') return result.affected;
    const summary = /Records:\s*(\d+)\s+Duplicates:\s*(\d+)/.exec(result.info ?? '');
    if (summary) return Number(summary[1]) - Number(summary[2]);
    return result.insertId === 1 ? 0 : result.affected;
  }

  async ping(): Promise<void> {
    await this.exec('SELECT 1');
  }
}

/**
 * Runs a SQLite transaction's statements in the order they were asked for, also those of work done
 * concurrently (Promise.all): a transaction must take the write lock with its first statement
 * (see heldClaims), whatever the depth of the calls that reach the database.
 */
function inTurn<T>(tx: TxContext, run: () => Promise<T>): Promise<T> {
  const result = (tx.turn ?? Promise.resolve()).then(run, run);
  tx.turn = result.catch(() => undefined);
  return result;
}

async function runStatements<T>(manager: EntityManager, dataSource: DataSource, statements: Statement[], dialect: Dialect): Promise<Array<ExecResult<T>>> {
  if (dialect === 'sqlite' || statements.length === 1) {
    const results: Array<ExecResult<T>> = [];
    for (const { sql, params } of statements) results.push(execResult<T>(await runStructured(manager, dataSource, sql, params)));
    return results;
  }
  // mysql2 answers a multi-statement query with one result per statement.
  const joined = await runStructured(
    manager,
    dataSource,
    statements.map((s) => s.sql).join(';\n'),
    statements.flatMap((s) => s.params),
  );
  return (joined.raw as unknown[]).map((raw) => execResult<T>({ raw, records: Array.isArray(raw) ? raw : [] } as QueryResult));
}

function execResult<T>(result: QueryResult): ExecResult<T> {
  const rows = Array.isArray(result.records) ? (result.records as T[]) : [];
  const raw = result.raw as { affectedRows?: number; insertId?: number; info?: string } | number | bigint | undefined;
  const affected = result.affected ?? (typeof raw === 'object' && raw !== null && typeof raw.affectedRows === 'number' ? raw.affectedRows : 0);
  const insertId = typeof raw === 'object' && raw !== null ? (raw.insertId ?? null) : raw === undefined ? null : Number(raw);
  const info = typeof raw === 'object' && raw !== null && typeof raw.info === 'string' && raw.info !== '' ? raw.info : null;
  return { rows, affected, insertId, info };
}

async function runStructured(manager: EntityManager, dataSource: DataSource, sql: string, params: unknown[]): Promise<QueryResult> {
  const inTransaction = manager.queryRunner;
  if (inTransaction && !inTransaction.isReleased) return inTransaction.query(sql, params, true);
  const runner = dataSource.createQueryRunner();
  try {
    return await runner.query(sql, params, true);
  } finally {
    await runner.release();
  }
}

const DEADLOCK_CODES = new Set(['ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT']);

async function retryOnDeadlock<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      const code = (error as { code?: string }).code ?? (error as { driverError?: { code?: string } }).driverError?.code;
      if (attempt >= 5 || !code || !DEADLOCK_CODES.has(code)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5 * attempt + Math.random() * 20));
    }
  }
}

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'POOL_CLOSED',
  'SQLITE_BUSY',
  'SQLITE_IOERR',
  'SQLITE_CANTOPEN',
  'SQLITE_FULL',
]);

/** Storage that cannot be reached is `unavailable` (503), never a 500 with driver text. */
async function translateErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isUnavailable(error)) throw new DomainError('unavailable', 'storage is unavailable; nothing was accepted');
    throw error;
  }
}

export function isUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    const e = current as { code?: string; errno?: string; message?: string; driverError?: unknown; cause?: unknown };
    if ((e.code && UNAVAILABLE_CODES.has(e.code)) || (e.errno && UNAVAILABLE_CODES.has(e.errno))) return true;
    if (typeof e.message === 'string' && /connection is in closed state|Pool is closed|Can't add new command when connection is in closed state|connect ETIMEDOUT/i.test(e.message)) return true;
    current = e.driverError ?? e.cause;
  }
  return false;
}
