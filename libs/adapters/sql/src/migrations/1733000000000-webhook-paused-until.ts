import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { msColumn } from './columns';

/**
 * `webhooks.paused_until`: a receiver's Retry-After (429/503), shared by every dispatcher: no call to
 * the webhook starts before it, and waiting deliveries show it as their `nextAttemptAt`.
 */
export class WebhookPausedUntil1733000000000 implements MigrationInterface {
  name = 'WebhookPausedUntil1733000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.addColumn('webhooks', new TableColumn(msColumn('paused_until', true)));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('webhooks', 'paused_until');
  }
}
