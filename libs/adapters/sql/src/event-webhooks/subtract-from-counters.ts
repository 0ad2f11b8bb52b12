import { TypeormDatabase } from '../typeorm-database';

/** Counter rows changed per statement at most. */
const ROWS_PER_STATEMENT = 100;

/** One counter to take amounts off: the values of its key columns, and one amount per counted column. */
export interface CounterDecrement {
  key: unknown[];
  amounts: number[];
}

/**
 * Takes amounts off counter rows of `table`, each found by `keyColumns`, in few statements
 * (`UPDATE ... SET c = c - CASE WHEN <key> THEN ? ... END`, writes nobody reads the answer of). A
 * counter already gone (purged) stays gone.
 */
export async function subtractFromCounters(db: TypeormDatabase, table: string, keyColumns: readonly string[], countedColumns: readonly string[], decrements: CounterDecrement[]): Promise<void> {
  const key = `(${keyColumns.map((column) => `${column} = ?`).join(' AND ')})`;
  for (let i = 0; i < decrements.length; i += ROWS_PER_STATEMENT) {
    const chunk = decrements.slice(i, i + ROWS_PER_STATEMENT);
    const set = countedColumns.map((column) => `${column} = ${column} - CASE ${chunk.map(() => `WHEN ${key} THEN ?`).join(' ')} ELSE 0 END`).join(', ');
    await db.write(`UPDATE ${table} SET ${set} WHERE ${chunk.map(() => key).join(' OR ')}`, [
      ...countedColumns.flatMap((_, c) => chunk.flatMap((d) => [...d.key, d.amounts[c]])),
      ...chunk.flatMap((d) => d.key),
    ]);
  }
}
