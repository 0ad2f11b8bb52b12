import { TypeormDatabase } from './typeorm-database';

/**
 * `SELECT columns FROM table WHERE where` for a change built on what it reads: in a unit of work the
 * rows stay as read until it ends, so a concurrent change waits instead of being overwritten.
 * MySQL locks them (`FOR UPDATE` reads the latest commit, not the transaction's snapshot); SQLite
 * has no row locks, and a no-op write first takes its write lock (this process runs one
 * transaction at a time already; another process on the file then waits). `touch` is a column the
 * no-op write sets to itself. Outside a unit of work it is a plain read.
 */
export async function readForUpdate<T>(db: TypeormDatabase, table: string, columns: string, where: string, params: unknown[], touch = 'updated_at'): Promise<T[]> {
  const select = `SELECT ${columns} FROM ${table} WHERE ${where}`;
  if (!db.inTransaction()) return db.query<T>(select, params);
  if (db.dialect === 'mysql') return db.query<T>(`${select} FOR UPDATE`, params);
  await db.exec(`UPDATE ${table} SET ${touch} = ${touch} WHERE ${where}`, params);
  return db.query<T>(select, params);
}
