import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/** Lets the scrape-time gauges (libs/adapters/metrics) count waiting deliveries without a table scan. */
export class DeliveryStatusIndex1732250000000 implements MigrationInterface {
  name = 'DeliveryStatusIndex1732250000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.createIndex('deliveries', new TableIndex({ name: 'ix_deliveries_status', columnNames: ['status', 'next_attempt_at'] }));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropIndex('deliveries', 'ix_deliveries_status');
  }
}
