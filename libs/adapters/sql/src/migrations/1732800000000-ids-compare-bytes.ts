import { MigrationInterface, QueryRunner } from 'typeorm';
import { DESCRIBED_COLUMN_FIELDS, DescribedColumn, modifyToUtf8mb4 } from './columns';

/**
 * Ids, tokens, hashes, keys and sealed secrets compare byte for byte on MySQL, as they do on SQLite.
 * The tables were created in the server's default collation, which ignores case: a producer's
 * `evt_CaseA` and `evt_casea` were one primary key there, so the second event was answered 202 as
 * a repeat and never stored or delivered. Each table is rebuilt once, with all its columns changed
 * in one statement (a large `deliveries` table takes a while). No stored key can collide: a
 * case-insensitive key is unique under the stricter collation too.
 */
export class IdsCompareBytes1732800000000 implements MigrationInterface {
  name = 'IdsCompareBytes1732800000000';

  async up(runner: QueryRunner): Promise<void> {
    if (runner.connection.driver.options.type !== 'mysql') return;
    const columns: DescribedColumn[] = await runner.query(
      `SELECT ${DESCRIBED_COLUMN_FIELDS} FROM information_schema.COLUMNS
       WHERE TABLE_SCHEMA = DATABASE() AND CHARACTER_SET_NAME IS NOT NULL AND COLLATION_NAME <> 'utf8mb4_bin'
         AND (COLUMN_NAME = 'id' OR COLUMN_NAME REGEXP '_(id|token|hash|key|sealed)$')
       ORDER BY TABLE_NAME, ORDINAL_POSITION`,
    );
    const byTable = new Map<string, DescribedColumn[]>();
    for (const c of columns) byTable.set(c.table, [...(byTable.get(c.table) ?? []), c]);
    for (const [table, changes] of byTable) {
      await runner.query(`ALTER TABLE \`${table}\` ${changes.map((c) => modifyToUtf8mb4(c, 'utf8mb4_bin')).join(', ')}`);
    }
  }

  async down(): Promise<void> {
    // Going back to a collation that ignores case could make two stored keys collide: nothing to undo.
  }
}
