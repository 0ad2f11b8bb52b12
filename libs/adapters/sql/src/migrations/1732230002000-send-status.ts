import { MigrationInterface, QueryRunner, Table, TableColumnOptions, TableIndex } from 'typeorm';
import { intColumn, msColumn, stringColumn } from './columns';

/** Ids compare byte for byte on MySQL too (its default collation ignores case): `MSG_...` is not `msg_...`. */
const exact = (runner: QueryRunner, column: TableColumnOptions): TableColumnOptions =>
  runner.connection.driver.options.type === 'mysql' ? { ...column, charset: 'utf8mb4', collation: 'utf8mb4_bin' } : column;

/**
 * Transactional send status (libs/send-status) and the job leases (JobLease port).
 *
 * - `sends`: one row per send. `id_sending` is the auto-increment primary key, so every process
 *   of an installation gets distinct integers from the database itself; `id` (`msg_...`) is the
 *   public key. `status_rank` lets one conditional UPDATE enforce forward-only moves.
 * - `send_history`: every report once: its primary key is (send, report key), the report key a
 *   hash of (status, at, diag code, bounce type); a repeated report is skipped on insert.
 * - `job_leases`: one row per named periodic job, taken by a conditional UPDATE/INSERT.
 */
export class SendStatus1732230002000 implements MigrationInterface {
  name = 'SendStatus1732230002000';

  async up(runner: QueryRunner): Promise<void> {
    const mysql = runner.connection.driver.options.type === 'mysql';
    await runner.createTable(
      new Table({
        name: 'sends',
        columns: [
          // SQLite autoincrements only an INTEGER PRIMARY KEY (a 64-bit rowid); MySQL needs BIGINT for 64 bits.
          { name: 'id_sending', type: mysql ? 'bigint' : 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          exact(runner, stringColumn('id', 40)),
          { name: 'account_id', type: 'integer' },
          stringColumn('email', 254),
          intColumn('sending_type'),
          stringColumn('status', 16),
          intColumn('status_rank'),
          stringColumn('diag_code', 1024, true),
          stringColumn('bounce_type', 8, true),
          msColumn('scheduled_at', true),
          msColumn('created_at'),
          msColumn('updated_at'),
        ],
        indices: [
          new TableIndex({ name: 'uq_sends_id', columnNames: ['id'], isUnique: true }),
          new TableIndex({ name: 'ix_sends_created', columnNames: ['created_at'] }),
        ],
      }),
    );
    await runner.createTable(
      new Table({
        name: 'send_history',
        columns: [
          { ...exact(runner, stringColumn('send_id', 40)), isPrimary: true },
          { ...exact(runner, stringColumn('report_key', 64)), isPrimary: true },
          stringColumn('status', 16),
          msColumn('at'),
          stringColumn('diag_code', 1024, true),
          stringColumn('bounce_type', 8, true),
          msColumn('received_at'),
        ],
      }),
    );
    await runner.createTable(
      new Table({
        name: 'job_leases',
        columns: [{ ...stringColumn('name', 64), isPrimary: true }, stringColumn('holder', 64), msColumn('expires_at'), msColumn('acquired_at')],
      }),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('job_leases');
    await runner.dropTable('send_history');
    await runner.dropTable('sends');
  }
}
