import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * `ix_events_account` (account_id) repeats the leading column of `ix_events_feed` (account_id,
 * created, id), which serves every lookup by account (the feed, account deletion) as well; each
 * event stored paid for one more index entry for nothing.
 */
export class DropRedundantEventsAccountIndex1732700000000 implements MigrationInterface {
  name = 'DropRedundantEventsAccountIndex1732700000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.dropIndex('events', 'ix_events_account');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.createIndex('events', new TableIndex({ name: 'ix_events_account', columnNames: ['account_id'] }));
  }
}
