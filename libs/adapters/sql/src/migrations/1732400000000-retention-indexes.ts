import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * The retention purge (CONTRACT §9.6) takes the oldest events by `created` and the oldest runs by
 * `started_at`, a batch at a time: each batch is one range scan of one of these indexes.
 */
export class RetentionIndexes1732400000000 implements MigrationInterface {
  name = 'RetentionIndexes1732400000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.createIndex('events', new TableIndex({ name: 'ix_events_created', columnNames: ['created'] }));
    await runner.createIndex('automation_runs', new TableIndex({ name: 'ix_automation_runs_started', columnNames: ['started_at'] }));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropIndex('automation_runs', 'ix_automation_runs_started');
    await runner.dropIndex('events', 'ix_events_created');
  }
}
