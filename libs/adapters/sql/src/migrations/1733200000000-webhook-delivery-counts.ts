import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { intColumn, msColumn, stringColumn, utf8mb4 } from './columns';

/**
 * Counters of settled deliveries (succeeded, failed, skipped, cancelled) per webhook, hour of the
 * delivery's creation and status, kept by every write that changes them: `GET .../stats` (CONTRACT
 * §9.3) adds a few of these up instead of counting the webhook's deliveries. Filled here from the
 * deliveries stored (run it while no dispatcher writes, as every migration).
 */
export class WebhookDeliveryCounts1733200000000 implements MigrationInterface {
  name = 'WebhookDeliveryCounts1733200000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.createTable(
      new Table({
        name: 'webhook_delivery_counts',
        columns: [
          { ...utf8mb4(runner, stringColumn('webhook_id', 40)), isPrimary: true },
          { ...msColumn('hour_start'), isPrimary: true },
          { ...utf8mb4(runner, stringColumn('status', 16)), isPrimary: true },
          intColumn('n', false, 0),
        ],
      }),
    );
    if (runner.connection.driver.options.type === 'mysql') {
      await runner.query('ALTER TABLE webhook_delivery_counts DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci');
    }
    await runner.query(
      `INSERT INTO webhook_delivery_counts (webhook_id, hour_start, status, n)
       SELECT webhook_id, created_at - created_at % 3600000, status, COUNT(*) FROM deliveries
       WHERE status IN ('succeeded', 'failed', 'skipped', 'cancelled')
       GROUP BY webhook_id, created_at - created_at % 3600000, status`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('webhook_delivery_counts');
  }
}
