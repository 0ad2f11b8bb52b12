import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { msColumn, stringColumn } from './columns';

export class InstallationSettings1732230000100 implements MigrationInterface {
  name = 'InstallationSettings1732230000100';

  async up(runner: QueryRunner): Promise<void> {
    await runner.createTable(
      new Table({
        name: 'installation_settings',
        columns: [{ ...stringColumn('name', 64), isPrimary: true }, stringColumn('value', 512), msColumn('created_at')],
      }),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('installation_settings');
  }
}
