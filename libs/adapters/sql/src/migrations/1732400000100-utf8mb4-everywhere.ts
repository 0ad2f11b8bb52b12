import { MigrationInterface, QueryRunner } from 'typeorm';
import { DESCRIBED_COLUMN_FIELDS, DescribedColumn, modifyToUtf8mb4 } from './columns';

/**
 * Every character column in utf8mb4 on MySQL, whatever the server's or database's default: on a
 * latin1 database the earlier migrations created latin1 tables, where an emoji in an event's data
 * was stored (and signed) as `?`. Columns already utf8mb4 keep their collation (ids compare with
 * utf8mb4_bin); the others become utf8mb4_unicode_ci, and every table's default follows. SQLite
 * text is always UTF-8: nothing to do there.
 */
export class Utf8mb4Everywhere1732400000100 implements MigrationInterface {
  name = 'Utf8mb4Everywhere1732400000100';

  async up(runner: QueryRunner): Promise<void> {
    if (runner.connection.driver.options.type !== 'mysql') return;
    const narrow: DescribedColumn[] = await runner.query(
      `SELECT ${DESCRIBED_COLUMN_FIELDS}
       FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND CHARACTER_SET_NAME IS NOT NULL AND CHARACTER_SET_NAME <> 'utf8mb4'`,
    );
    for (const c of narrow) await runner.query(`ALTER TABLE \`${c.table}\` ${modifyToUtf8mb4(c, 'utf8mb4_unicode_ci')}`);
    const tables: Array<{ table: string }> = await runner.query(
      `SELECT TABLE_NAME AS \`table\` FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE = 'BASE TABLE' AND TABLE_COLLATION NOT LIKE 'utf8mb4%'`,
    );
    for (const { table } of tables) await runner.query(`ALTER TABLE \`${table}\` DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  }

  async down(): Promise<void> {
    // Narrowing back to a smaller character set would lose characters: nothing to undo.
  }
}
