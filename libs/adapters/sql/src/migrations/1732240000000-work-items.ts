import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { idColumn, intColumn, msColumn, stringColumn, textColumn } from './columns';

/** The database queue: one row per waiting or leased work item (libs/adapters/queue/src/database). */
export class WorkItems1732240000000 implements MigrationInterface {
  name = 'WorkItems1732240000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.createTable(
      new Table({
        name: 'work_items',
        columns: [
          idColumn(),
          stringColumn('topic', 64),
          textColumn(runner, 'payload'),
          stringColumn('dedup_key', 191, true),
          // Due time while waiting, lease expiry while a worker holds the item.
          msColumn('available_at'),
          stringColumn('lease_token', 40, true),
          intColumn('delivery_count', false, 0),
          msColumn('created_at'),
        ],
        indices: [
          new TableIndex({ name: 'uq_work_items_topic_key', columnNames: ['topic', 'dedup_key'], isUnique: true }),
          new TableIndex({ name: 'ix_work_items_due', columnNames: ['topic', 'available_at'] }),
        ],
      }),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('work_items');
  }
}
