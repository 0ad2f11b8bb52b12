import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { stringColumn, utf8mb4 } from './columns';

/**
 * `webhooks.disabled_reason` (CONTRACT §9.3): `consecutive_failures` or `manual` while disabled,
 * null while enabled. Webhooks disabled before this column existed get a best guess: the failure
 * counter is left as it was by a manual disable, so a non-zero counter points to the automatic one.
 */
export class WebhookDisabledReason1732330000000 implements MigrationInterface {
  name = 'WebhookDisabledReason1732330000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.addColumn('webhooks', new TableColumn(utf8mb4(runner, stringColumn('disabled_reason', 32, true))));
    await runner.query(
      `UPDATE webhooks SET disabled_reason = CASE WHEN consecutive_failures > 0 THEN 'consecutive_failures' ELSE 'manual' END WHERE state = 'disabled'`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('webhooks', 'disabled_reason');
  }
}
