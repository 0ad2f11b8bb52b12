import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { idColumn, intColumn, msColumn, stringColumn, textColumn } from './columns';

/** Event webhooks (libs/event-webhooks): webhooks, the events accepted, and their deliveries. */
export class EventWebhooks1732230001000 implements MigrationInterface {
  name = 'EventWebhooks1732230001000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.createTable(
      new Table({
        name: 'webhooks',
        columns: [
          idColumn(),
          intColumn('account_id'),
          stringColumn('url', 2048),
          // JSON array of event types
          textColumn(runner, 'events'),
          stringColumn('description', 500, true),
          stringColumn('state', 16),
          stringColumn('api_version', 4),
          stringColumn('secret_sealed', 255),
          stringColumn('previous_secret_sealed', 255, true),
          msColumn('previous_secret_expires_at', true),
          intColumn('consecutive_failures', false, 0),
          msColumn('disabled_at', true),
          msColumn('created_at'),
          msColumn('updated_at'),
        ],
        indices: [new TableIndex({ name: 'ix_webhooks_account', columnNames: ['account_id', 'id'] })],
      }),
    );
    await runner.createTable(
      new Table({
        name: 'events',
        columns: [
          // Primary key (id, account_id): an id is the producer's idempotency key within its account.
          idColumn('id', 64),
          { ...intColumn('account_id'), isPrimary: true },
          stringColumn('type', 64),
          msColumn('created'), // Unix seconds, as in the envelope
          msColumn('received_at'),
          // The insert that stored the row: tells a batch which of its ids were already there.
          stringColumn('intake_id', 40),
          // The serialized envelope per API family, sent byte for byte on every attempt
          textColumn(runner, 'body_v3', true),
          textColumn(runner, 'body_v2', true),
        ],
      }),
    );
    await runner.createTable(
      new Table({
        name: 'deliveries',
        columns: [
          idColumn(),
          stringColumn('webhook_id', 40),
          intColumn('account_id'),
          stringColumn('event_id', 64),
          stringColumn('event_type', 64),
          stringColumn('api_version', 4),
          stringColumn('status', 16),
          // JSON array of attempts
          textColumn(runner, 'attempts'),
          intColumn('retry_step', false, 0),
          intColumn('seq', false, 0),
          msColumn('next_attempt_at', true),
          msColumn('claimed_until', true),
          stringColumn('claim_token', 40, true),
          msColumn('created_at'),
        ],
        indices: [
          new TableIndex({ name: 'uq_deliveries_event_webhook', columnNames: ['event_id', 'webhook_id'], isUnique: true }),
          new TableIndex({ name: 'ix_deliveries_webhook', columnNames: ['webhook_id', 'id'] }),
          new TableIndex({ name: 'ix_deliveries_webhook_status', columnNames: ['webhook_id', 'status', 'id'] }),
        ],
      }),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('deliveries');
    await runner.dropTable('events');
    await runner.dropTable('webhooks');
  }
}
