import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { intColumn } from './columns';

/** Queue items count the times their handler threw (WORK_MAX_HANDLER_FAILURES), apart from hand-overs. */
export class WorkFailures1732300000100 implements MigrationInterface {
  name = 'WorkFailures1732300000100';

  async up(runner: QueryRunner): Promise<void> {
    await runner.addColumn('work_items', new TableColumn(intColumn('failures', false, 0)));
    await runner.addColumn('outbox', new TableColumn(intColumn('failures', false, 0)));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('outbox', 'failures');
    await runner.dropColumn('work_items', 'failures');
  }
}
