import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { textColumn, utf8mb4 } from './columns';

/**
 * `webhook_targets.headers_sealed`: a target's custom headers (often an `Authorization` value),
 * sealed with the SecretBox like the signing keys. A new database is marked to write them sealed
 * from the start (openDatabase); one upgraded from an earlier release keeps writing them in clear,
 * which its processes still running read, until `secrets reseal` seals them (TypeormWebhookTargetRepository).
 */
export class TargetHeadersSealed1733100000000 implements MigrationInterface {
  name = 'TargetHeadersSealed1733100000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.addColumn('webhook_targets', new TableColumn(utf8mb4(runner, textColumn(runner, 'headers_sealed', true))));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('webhook_targets', 'headers_sealed');
  }
}
