import { flatten } from '../../../../kernel/src';
import { TypeormDatabase } from '../typeorm-database';

/** Fewer, larger statements are what makes batch intake fast; both bounds keep a statement well under
 * SQLite's 32766 bound variables and MySQL's default 16 MB packet (rows here are at most a few KB). */
const MAX_ROWS_PER_STATEMENT = 1000;
const MAX_PARAMS_PER_STATEMENT = 30_000;

/** `INSERT INTO table (columns) VALUES (...), (...)`, a chunk of rows per statement, each a write nobody reads the answer of (TypeormDatabase.write). */
export async function insertRows(db: TypeormDatabase, table: string, columns: readonly string[], rows: unknown[][]): Promise<void> {
  for (const [sql, params] of statements(table, columns, rows)) await db.write(sql, params);
}

/** The same, skipping the rows whose key is already stored (TypeormDatabase.insertSkippingDuplicates); returns rows inserted. */
export async function insertRowsSkippingDuplicates(db: TypeormDatabase, table: string, columns: readonly string[], rows: unknown[][], keyColumn: string): Promise<number> {
  let inserted = 0;
  for (const [sql, params] of statements(table, columns, rows)) inserted += await db.insertSkippingDuplicates(sql, params, keyColumn);
  return inserted;
}

function statements(table: string, columns: readonly string[], rows: unknown[][]): Array<[string, unknown[]]> {
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  const rowsPerStatement = Math.min(MAX_ROWS_PER_STATEMENT, Math.floor(MAX_PARAMS_PER_STATEMENT / columns.length));
  const out: Array<[string, unknown[]]> = [];
  for (let i = 0; i < rows.length; i += rowsPerStatement) {
    const chunk = rows.slice(i, i + rowsPerStatement);
    out.push([`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${chunk.map(() => tuple).join(', ')}`, flatten(chunk)]);
  }
  return out;
}

export const placeholders = (values: readonly unknown[]): string => values.map(() => '?').join(', ');

export const dateOrNull = (value: number | string | null | undefined): Date | null => (value === null || value === undefined ? null : new Date(Number(value)));
