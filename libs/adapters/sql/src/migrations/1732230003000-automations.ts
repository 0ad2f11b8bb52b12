import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { idColumn, intColumn, msColumn, stringColumn, textColumn } from './columns';

/** Automations (libs/webhook-targets, libs/automations, libs/incoming-trigger): targets, workflows, runs. */
export class Automations1732230003000 implements MigrationInterface {
  name = 'Automations1732230003000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.createTable(
      new Table({
        name: 'webhook_targets',
        columns: [
          idColumn(),
          intColumn('account_id'),
          stringColumn('name', 200),
          stringColumn('url', 2048),
          // JSON object of custom headers
          textColumn(runner, 'headers'),
          stringColumn('signing_key_sealed', 1024, true),
          msColumn('created_at'),
          msColumn('updated_at'),
        ],
        indices: [new TableIndex({ name: 'ix_webhook_targets_account', columnNames: ['account_id', 'id'] })],
      }),
    );
    await runner.createTable(
      new Table({
        name: 'workflows',
        columns: [
          idColumn(),
          intColumn('account_id'),
          stringColumn('name', 200),
          stringColumn('state', 16),
          // JSON {"trigger", "steps"}
          textColumn(runner, 'definition'),
          // SHA-256 (hex) of the current trigger token; set only while active
          stringColumn('trigger_token_hash', 64, true),
          msColumn('created_at'),
          msColumn('updated_at'),
        ],
        indices: [
          new TableIndex({ name: 'ix_workflows_account', columnNames: ['account_id', 'id'] }),
          new TableIndex({ name: 'uq_workflows_trigger_token', columnNames: ['trigger_token_hash'], isUnique: true }),
        ],
      }),
    );
    // Which targets each workflow's steps call: answers "is this target in use" with an index.
    await runner.createTable(
      new Table({
        name: 'workflow_targets',
        columns: [
          // composite primary key (workflow_id, target_id)
          idColumn('workflow_id'),
          idColumn('target_id'),
          intColumn('account_id'),
        ],
        indices: [new TableIndex({ name: 'ix_workflow_targets_target', columnNames: ['target_id'] })],
      }),
    );
    await runner.createTable(
      new Table({
        name: 'automation_runs',
        columns: [
          idColumn(),
          intColumn('account_id'),
          stringColumn('workflow_id', 40),
          stringColumn('status', 16),
          // The trigger body exactly as received (up to 256 KB of JSON text)
          textColumn(runner, 'trigger_body'),
          // JSON {"name", "steps"}: the workflow as it was when the run started
          textColumn(runner, 'definition'),
          // JSON array of step states {status, attempts, resumeAt?}
          textColumn(runner, 'step_states'),
          intColumn('step_index', false, 0),
          intColumn('seq', false, 0),
          msColumn('started_at'),
          msColumn('finished_at', true),
        ],
        indices: [new TableIndex({ name: 'ix_automation_runs_workflow', columnNames: ['workflow_id', 'started_at'] })],
      }),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('automation_runs');
    await runner.dropTable('workflow_targets');
    await runner.dropTable('workflows');
    await runner.dropTable('webhook_targets');
  }
}
