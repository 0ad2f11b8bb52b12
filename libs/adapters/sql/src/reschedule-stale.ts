import { rescheduledWork, WorkRef } from '../../../kernel/src';
import { readForUpdate } from './read-for-update';
import { TypeormDatabase } from './typeorm-database';

/** Which rows of a table a sweeper takes to have lost their queue item. */
export interface StaleRows {
  /** A table with `id` and `seq` columns: `deliveries`, `automation_runs`. */
  table: string;
  /** The condition of a waiting row due before the staleness bound, with its parameters. */
  where: string;
  params: unknown[];
  /** The order of the index the condition scans (oldest due first). */
  orderBy: string;
  /** The column that says when the row's item is due: set to `now`. */
  dueColumn: string;
}

/**
 * The conditional write behind every sweeper (rescheduledWork of libs/kernel decides the new seq):
 * up to `limit` rows matching `where`, locked, get their item due now and seq + 1, so that an item of
 * theirs still alive is outdated. Runs in the caller's transaction, the rows locked until it ends.
 */
export async function rescheduleStaleRows(db: TypeormDatabase, rows: StaleRows, now: Date, limit: number): Promise<Array<WorkRef & { at: Date }>> {
  const { table, where, params, orderBy, dueColumn } = rows;
  // MySQL skips the rows a worker is writing right now.
  const read = await readForUpdate<{ id: string; seq: number | string }>(db, {
    table,
    columns: 'id, seq',
    where,
    params,
    then: `ORDER BY ${orderBy} LIMIT ${Math.max(1, Math.trunc(limit))}`,
    skipLocked: true,
  });
  if (read.length === 0) return [];
  const ids = read.map((r) => r.id);
  await db.exec(`UPDATE ${table} SET ${dueColumn} = ?, seq = seq + 1 WHERE id IN (${ids.map(() => '?').join(', ')})`, [now.getTime(), ...ids]);
  return rescheduledWork(read.map((r) => ({ id: r.id, seq: Number(r.seq) })), now);
}
