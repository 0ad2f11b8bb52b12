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
