import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * `automation_runs.next_at` (epoch ms, null once the run ended): when the queue item a running run
 * waits for is due. RunSweeper re-queues running runs long past it (their item was lost), one range
 * scan of `ix_automation_runs_due (status, next_at)`. Runs started before this column existed get
 * it at their next step; until then a lost item of theirs is not found.
 */
export class RunNextAt1732410000000 implements MigrationInterface {
  name = 'RunNextAt1732410000000';

  async up(runner: QueryRunner): Promise<void> {
    // Plain ADD COLUMN on both engines (TypeORM's addColumn rebuilds a SQLite table, copying every trigger body).
    await runner.query('ALTER TABLE automation_runs ADD COLUMN next_at bigint NULL');
    await runner.createIndex('automation_runs', new TableIndex({ name: 'ix_automation_runs_due', columnNames: ['status', 'next_at'] }));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropIndex('automation_runs', 'ix_automation_runs_due');
    await runner.dropColumn('automation_runs', 'next_at');
  }
}
