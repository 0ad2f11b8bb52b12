import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';
import { msColumn, stringColumn } from './columns';

/**
 * Operators' account management (CONTRACT 9.5):
 * - `accounts.deleted_at`: set when a deletion starts; the account is invisible from then on and
 *   the row goes last (AccountDeletion.finishDeletions), so an interrupted deletion can be finished.
 * - `api_keys.prefix` (first 8 characters, null for older keys) and `api_keys.last_used_at`.
 * - indexes on `account_id` of the large tables an account deletion walks in batches.
 */
export class Operators1732310000000 implements MigrationInterface {
  name = 'Operators1732310000000';

  async up(runner: QueryRunner): Promise<void> {
    const mysql = runner.connection.driver.options.type === 'mysql';
    const prefix = stringColumn('prefix', 8, true);
    await runner.addColumn('accounts', new TableColumn(msColumn('deleted_at', true)));
    await runner.addColumns('api_keys', [
      new TableColumn(mysql ? { ...prefix, charset: 'utf8mb4', collation: 'utf8mb4_bin' } : prefix),
      new TableColumn(msColumn('last_used_at', true)),
    ]);
    for (const [table, name] of OWNER_INDEXES) await runner.createIndex(table, new TableIndex({ name, columnNames: ['account_id'] }));
  }

  async down(runner: QueryRunner): Promise<void> {
    for (const [table, name] of OWNER_INDEXES) await runner.dropIndex(table, name);
    await runner.dropColumns('api_keys', ['prefix', 'last_used_at']);
    await runner.dropColumn('accounts', 'deleted_at');
  }
}

const OWNER_INDEXES: Array<[string, string]> = [
  ['events', 'ix_events_account'],
  ['sends', 'ix_sends_account'],
  ['automation_runs', 'ix_automation_runs_account'],
];
