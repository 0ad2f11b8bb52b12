import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { textColumn, utf8mb4 } from './columns';

/**
 * `webhook_targets.headers_sealed`: a target's custom headers (often an `Authorization` value),
 * sealed with the SecretBox like the signing keys. A new installation (no account yet) writes them
 * sealed from the start; one upgraded from an earlier release keeps writing them in clear, which its
 * processes still running read, until `secrets reseal` seals them (TypeormWebhookTargetRepository).
 */
export class TargetHeadersSealed1733100000000 implements MigrationInterface {
  name = 'TargetHeadersSealed1733100000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.addColumn('webhook_targets', new TableColumn(utf8mb4(runner, textColumn(runner, 'headers_sealed', true))));
    const [{ n }] = (await runner.query('SELECT COUNT(*) AS n FROM accounts')) as Array<{ n: number | string }>;
    if (Number(n) === 0) {
      await runner.query('INSERT INTO installation_settings (name, value, created_at) VALUES (?, ?, ?)', ['target_headers_sealed', '1', Date.now()]);
    }
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DELETE FROM installation_settings WHERE name = ?', ['target_headers_sealed']);
    await runner.dropColumn('webhook_targets', 'headers_sealed');
  }
}
