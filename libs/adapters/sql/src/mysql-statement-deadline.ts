/**
 * A deadline for MySQL statements, so a database that stops answering (frozen, black-holed, a
 * failover in progress) turns requests into `503 unavailable` instead of holding them as long as
 * it stays so. mysql2's own query timeout cannot do it: it reports the error but leaves the
 * statement on the connection, which goes back to the pool still waiting, and a COMMIT given up
 * that way may still commit after the client heard "nothing was accepted".
 *
 * Here a statement that misses its deadline closes its connection. MySQL rolls back the
 * transaction of a connection that closed, so that is only done where nothing can have been
 * committed: a read, the statements that open or roll back a transaction, and every statement
 * inside one before its COMMIT. A COMMIT (alone or at the end of statements sent together), and a
 * write outside a transaction (which commits by itself), once sent may be applied whatever the
 * client does; those wait for their answer. Statements sent together are judged by their text as a
 * whole: it opens a transaction if it begins with START TRANSACTION, and commits if it ends with COMMIT.
 */

/** The part of mysql2's callback-style pooled connection the deadline uses. */
interface MysqlConnection {
  query(...args: unknown[]): unknown;
  stream: { destroy(): void };
}

export interface MysqlPool {
  getConnection(callback: (error: unknown, connection?: MysqlConnection) => void): void;
}

/** The text ends with a COMMIT: alone, or after other statements sent with it in one query. */
const COMMIT = /(^|;)\s*COMMIT\s*;?\s*$/i;
const ENDS_TRANSACTION = /(^|;)\s*(COMMIT|ROLLBACK)\s*;?\s*$/i;
const OPENS_TRANSACTION = /^\s*(START\s+TRANSACTION|BEGIN)\b/i;
const TRANSACTION_CONTROL = /^\s*(START\s+TRANSACTION|BEGIN|ROLLBACK|SET\s+TRANSACTION|SAVEPOINT|RELEASE\s+SAVEPOINT)\b/i;
const READ = /^\s*(SELECT|SHOW)\b/i;

/** Whether giving up `sql` (by closing its connection) leaves nothing of it, or of its transaction, committed. */
export function mayCutOff(sql: string, inTransaction: boolean): boolean {
  if (COMMIT.test(sql)) return false;
  return inTransaction || READ.test(sql) || TRANSACTION_CONTROL.test(sql);
}

/** Whether the connection is inside a transaction once `sql` has been sent. */
export function inTransactionAfter(sql: string, inTransaction: boolean): boolean {
  if (ENDS_TRANSACTION.test(sql)) return false;
  if (OPENS_TRANSACTION.test(sql)) return true;
  return inTransaction;
}

/** The error a statement given up gets: `unavailable` to the API (see isUnavailable). */
export class StatementDeadlineError extends Error {
  readonly code = 'PROTOCOL_SEQUENCE_TIMEOUT';
  readonly fatal = true;

  constructor(timeoutMs: number) {
    super(`MySQL did not answer within ${timeoutMs} ms; the connection was closed and nothing of its transaction was committed`);
  }
}

/** Puts the deadline on every connection `pool` hands out from now on (TypeORM takes each from getConnection). */
export function cutOffSlowStatements(pool: MysqlPool, timeoutMs: number): void {
  const guarded = new WeakSet<MysqlConnection>();
  const getConnection = pool.getConnection.bind(pool);
  pool.getConnection = (callback) =>
    getConnection((error, connection) => {
      if (connection && !guarded.has(connection)) {
        guarded.add(connection);
        guard(connection, timeoutMs);
      }
      callback(error, connection);
    });
}

function guard(connection: MysqlConnection, timeoutMs: number): void {
  const query = connection.query;
  let inTransaction = false;
  connection.query = function (this: MysqlConnection, ...args: unknown[]) {
    const sql = statementText(args[0]);
    const last = args.length - 1;
    const callback = args[last];
    const cutOff = typeof callback === 'function' && mayCutOff(sql, inTransaction);
    inTransaction = inTransactionAfter(sql, inTransaction);
    if (!cutOff) return query.apply(this, args);
    const reply = callback as (...results: unknown[]) => void;
    let late = false;
    // Closing the socket makes mysql2 fail this statement (and any queued behind it) and drop the
    // connection from the pool before the caller hears of it, so the pool never hands it out again.
    const timer = setTimeout(() => {
      late = true;
      inTransaction = false;
      connection.stream.destroy();
    }, timeoutMs);
    args[last] = (...results: unknown[]) => {
      clearTimeout(timer);
      if (late) reply(new StatementDeadlineError(timeoutMs));
      else reply(...results);
    };
    return query.apply(this, args);
  };
}

function statementText(statement: unknown): string {
  if (typeof statement === 'string') return statement;
  if (statement && typeof statement === 'object' && typeof (statement as { sql?: unknown }).sql === 'string') return (statement as { sql: string }).sql;
  return '';
}
