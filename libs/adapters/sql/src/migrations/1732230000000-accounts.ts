import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { idColumn, msColumn, stringColumn } from './columns';

export class Accounts1732230000000 implements MigrationInterface {
  name = 'Accounts1732230000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.createTable(
      new Table({
        name: 'accounts',
        columns: [
          { name: 'id', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          stringColumn('name', 200),
          msColumn('created_at'),
        ],
      }),
    );
    await runner.createTable(
      new Table({
        name: 'api_keys',
        columns: [idColumn(), { name: 'account_id', type: 'integer' }, stringColumn('key_hash', 64), stringColumn('hint', 16), msColumn('created_at'), msColumn('revoked_at', true)],
        indices: [new TableIndex({ name: 'uq_api_keys_hash', columnNames: ['key_hash'], isUnique: true }), new TableIndex({ name: 'ix_api_keys_account', columnNames: ['account_id'] })],
      }),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('api_keys');
    await runner.dropTable('accounts');
  }
}
