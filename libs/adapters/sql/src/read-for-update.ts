import { TypeormDatabase } from './typeorm-database';

/** A read whose rows a change is built on: `SELECT columns FROM table WHERE where [then]`. */
export interface LockedRead {
  table: string;
  columns: string;
  where: string;
  params: unknown[];
  /** What follows the condition: `ORDER BY … LIMIT …` or `GROUP BY …`. */
  then?: string;
  /** MySQL: leave out the rows another transaction holds (`SKIP LOCKED`) instead of waiting for them. */
  skipLocked?: boolean;
}

/**
 * The one rule for a change built on what it reads: in a unit of work the rows stay as read until it
 * ends, so a concurrent change waits instead of being overwritten. MySQL locks them (`FOR UPDATE`
 * reads the latest commit, not the transaction's snapshot); SQLite has no row locks, and takes the
 * database's write lock first (takeSqliteWriteLock). Outside a unit of work it is a plain read.
 */
export async function readForUpdate<T>(db: TypeormDatabase, read: LockedRead): Promise<T[]> {
  const { table, columns, where, params, then, skipLocked } = read;
  const select = `SELECT ${columns} FROM ${table} WHERE ${where}${then ? ` ${then}` : ''}`;
  if (!db.inTransaction()) return db.query<T>(select, params);
  if (db.dialect === 'mysql') return db.query<T>(`${select} FOR UPDATE${skipLocked ? ' SKIP LOCKED' : ''}`, params);
  await takeSqliteWriteLock(db, table);
  return db.query<T>(select, params);
}

/**
 * On SQLite, a no-op write that takes the database's write lock for the rest of the transaction: one
 * that reads first fails at once (SQLITE_BUSY) when it later writes after another process wrote, and
 * within this process transactions already take turns. It changes no row. MySQL needs nothing here,
 * its locking reads and writes lock their own rows. `table` is any table with an `id` column.
 */
export async function takeSqliteWriteLock(db: TypeormDatabase, table: string): Promise<void> {
  if (db.dialect === 'sqlite') await db.exec(`UPDATE ${table} SET id = id WHERE 1 = 0`);
}
