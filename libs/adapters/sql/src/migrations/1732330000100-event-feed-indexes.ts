import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * The event feed (CONTRACT §9.2) reads an account's events newest first by (created, id), all
 * types or one type at a time: each page is one range scan of one of these indexes.
 */
export class EventFeedIndexes1732330000100 implements MigrationInterface {
  name = 'EventFeedIndexes1732330000100';

  async up(runner: QueryRunner): Promise<void> {
    await runner.createIndex('events', new TableIndex({ name: 'ix_events_feed', columnNames: ['account_id', 'created', 'id'] }));
    await runner.createIndex('events', new TableIndex({ name: 'ix_events_feed_type', columnNames: ['account_id', 'type', 'created', 'id'] }));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropIndex('events', 'ix_events_feed_type');
    await runner.dropIndex('events', 'ix_events_feed');
  }
}
