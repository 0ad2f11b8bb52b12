import { TypeormDatabase } from '../typeorm-database';

/** Rows per statement: well under SQLite's 32766 bound variables and MySQL's packet size for wide rows. */
const ROWS_PER_STATEMENT = 250;

/** `INSERT [IGNORE] INTO table (columns) VALUES (...), (...)`, a chunk of rows per statement; returns rows inserted. */
export async function insertRows(db: TypeormDatabase, table: string, columns: readonly string[], rows: unknown[][], options: { ignore?: boolean } = {}): Promise<number> {
  const verb = options.ignore ? db.insertIgnore() : 'INSERT';
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  let inserted = 0;
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    const chunk = rows.slice(i, i + ROWS_PER_STATEMENT);
    const { affected } = await db.exec(`${verb} INTO ${table} (${columns.join(', ')}) VALUES ${chunk.map(() => tuple).join(', ')}`, chunk.flat());
    inserted += affected;
  }
  return inserted;
}

export const placeholders = (values: readonly unknown[]): string => values.map(() => '?').join(', ');

export const dateOrNull = (value: number | string | null | undefined): Date | null => (value === null || value === undefined ? null : new Date(Number(value)));
