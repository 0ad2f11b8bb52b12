import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { idColumn, intColumn, msColumn, stringColumn, textColumn } from './columns';

/**
 * Work waiting to be handed to NATS (libs/adapters/queue/src/nats): written in the caller's transaction,
 * published after commit or by the relay, deleted once JetStream has it. Delayed work (runAt,
 * retry) waits here rather than in the stream.
 */
export class Outbox1732240000001 implements MigrationInterface {
  name = 'Outbox1732240000001';

  async up(runner: QueryRunner): Promise<void> {
    await runner.createTable(
      new Table({
        name: 'outbox',
        columns: [
          idColumn(),
          stringColumn('topic', 64),
          textColumn(runner, 'payload'),
          stringColumn('dedup_key', 191, true),
          msColumn('available_at'),
          stringColumn('lease_token', 40, true),
          intColumn('delivery_count', false, 0),
          // A retried item keeps its work id and how many times it was handed over before.
          stringColumn('work_id', 40),
          intColumn('prior_deliveries', false, 0),
          msColumn('created_at'),
        ],
        indices: [
          new TableIndex({ name: 'uq_outbox_topic_key', columnNames: ['topic', 'dedup_key'], isUnique: true }),
          new TableIndex({ name: 'ix_outbox_due', columnNames: ['available_at'] }),
        ],
      }),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('outbox');
  }
}
