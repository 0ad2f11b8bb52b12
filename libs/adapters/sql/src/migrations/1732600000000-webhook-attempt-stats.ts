import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { intColumn, msColumn, stringColumn, utf8mb4 } from './columns';

/**
 * Counters of attempts per webhook, hour of the delivery's creation and latency bucket, added to
 * as attempts are recorded: `GET .../stats` (CONTRACT §9.3) reads a few hundred of these rows
 * instead of the webhook's attempts.
 */
export class WebhookAttemptStats1732600000000 implements MigrationInterface {
  name = 'WebhookAttemptStats1732600000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.createTable(
      new Table({
        name: 'webhook_attempt_stats',
        columns: [
          { ...utf8mb4(runner, stringColumn('webhook_id', 40)), isPrimary: true },
          { ...msColumn('hour_start'), isPrimary: true },
          { ...intColumn('latency_bucket'), isPrimary: true },
          intColumn('succeeded', false, 0),
          intColumn('failed', false, 0),
        ],
      }),
    );
    if (runner.connection.driver.options.type === 'mysql') {
      await runner.query('ALTER TABLE webhook_attempt_stats DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci');
    }
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('webhook_attempt_stats');
  }
}
