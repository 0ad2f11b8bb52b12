import { QueryRunner, TableColumnOptions } from 'typeorm';

/** Column shapes shared by every migration, portable between SQLite and MySQL. */
export const idColumn = (name = 'id', length = 40): TableColumnOptions => ({ name, type: 'varchar', length: String(length), isPrimary: true });
export const stringColumn = (name: string, length: number, nullable = false): TableColumnOptions => ({ name, type: 'varchar', length: String(length), isNullable: nullable });
/** Epoch milliseconds: exact, sortable and free of time-zone conversion on both engines. */
export const msColumn = (name: string, nullable = false): TableColumnOptions => ({ name, type: 'bigint', isNullable: nullable });
export const intColumn = (name: string, nullable = false, defaultValue?: number): TableColumnOptions => ({
  name,
  type: 'int',
  isNullable: nullable,
  ...(defaultValue === undefined ? {} : { default: defaultValue }),
});
/** Large text: JSON documents, response bodies (MEDIUMTEXT on MySQL holds 16 MB; SQLite TEXT is unbounded). */
export const textColumn = (runner: QueryRunner, name: string, nullable = false): TableColumnOptions => ({
  name,
  type: runner.connection.driver.options.type === 'mysql' ? 'mediumtext' : 'text',
  isNullable: nullable,
});
/** A character column stored as utf8mb4 on MySQL whatever the server's default (SQLite text is always UTF-8). */
export const utf8mb4 = (runner: QueryRunner, column: TableColumnOptions, collation = 'utf8mb4_bin'): TableColumnOptions =>
  runner.connection.driver.options.type === 'mysql' ? { ...column, charset: 'utf8mb4', collation } : column;

/** A MySQL column as information_schema.COLUMNS describes it (TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COLUMN_DEFAULT). */
export interface DescribedColumn {
  table: string;
  column: string;
  type: string;
  nullable: 'YES' | 'NO';
  fallback: string | null;
}

/** The SELECT list that reads DescribedColumn rows from information_schema.COLUMNS. */
export const DESCRIBED_COLUMN_FIELDS = 'TABLE_NAME AS `table`, COLUMN_NAME AS `column`, COLUMN_TYPE AS type, IS_NULLABLE AS nullable, COLUMN_DEFAULT AS fallback';

/** `MODIFY` clause moving a MySQL column to utf8mb4 in `collation`, keeping its type, nullability and default. */
export function modifyToUtf8mb4(c: DescribedColumn, collation: string): string {
  // MariaDB reports a string default already quoted ('x'), and NULL as the text NULL.
  const fallback = c.fallback === null || c.fallback === 'NULL' ? '' : ` DEFAULT ${c.fallback}`;
  return `MODIFY \`${c.column}\` ${c.type} CHARACTER SET utf8mb4 COLLATE ${collation} ${c.nullable === 'YES' ? 'NULL' : 'NOT NULL'}${fallback}`;
}
