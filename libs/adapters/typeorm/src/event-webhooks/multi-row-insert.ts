import { TypeormDatabase } from '../typeorm-database';

/** Fewer, larger statements are what makes batch intake fast; both bounds keep a statement well under
 * SQLite's 32766 bound variables and MySQL's default 16 MB packet (rows here are at most a few KB). */
const MAX_ROWS_PER_STATEMENT = 1000;
const MAX_PARAMS_PER_STATEMENT = 30_000;

/** `INSERT [IGNORE] INTO table (columns) VALUES (...), (...)`, a chunk of rows per statement; returns rows inserted. */
export async function insertRows(db: TypeormDatabase, table: string, columns: readonly string[], rows: unknown[][], options: { ignore?: boolean } = {}): Promise<number> {
  const verb = options.ignore ? db.insertIgnore() : 'INSERT';
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  const rowsPerStatement = Math.min(MAX_ROWS_PER_STATEMENT, Math.floor(MAX_PARAMS_PER_STATEMENT / columns.length));
  let inserted = 0;
  for (let i = 0; i < rows.length; i += rowsPerStatement) {
    const chunk = rows.slice(i, i + rowsPerStatement);
    const { affected } = await db.exec(`${verb} INTO ${table} (${columns.join(', ')}) VALUES ${chunk.map(() => tuple).join(', ')}`, chunk.flat());
    inserted += affected;
  }
  return inserted;
}

export const placeholders = (values: readonly unknown[]): string => values.map(() => '?').join(', ');

export const dateOrNull = (value: number | string | null | undefined): Date | null => (value === null || value === undefined ? null : new Date(Number(value)));
