import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * `ix_delivery_attempts_webhook_at` (webhook_id, at) served no query. In its place
 * (webhook_id, delivery_id, duration_ms, http_status): the stats of a window that starts within an
 * hour read that part of the hour's attempts from this index alone (delivery ids sort by creation
 * time), not from the rows with their bodies and headers. Each attempt still pays for one index.
 */
export class AttemptsStatsIndex1733300000000 implements MigrationInterface {
  name = 'AttemptsStatsIndex1733300000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.dropIndex('delivery_attempts', 'ix_delivery_attempts_webhook_at');
    await runner.createIndex(
      'delivery_attempts',
      new TableIndex({ name: 'ix_delivery_attempts_webhook_delivery', columnNames: ['webhook_id', 'delivery_id', 'duration_ms', 'http_status'] }),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropIndex('delivery_attempts', 'ix_delivery_attempts_webhook_delivery');
    await runner.createIndex('delivery_attempts', new TableIndex({ name: 'ix_delivery_attempts_webhook_at', columnNames: ['webhook_id', 'at'] }));
  }
}
