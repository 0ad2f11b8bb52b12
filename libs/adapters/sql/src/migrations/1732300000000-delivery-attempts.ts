import { MigrationInterface, QueryRunner, Table, TableColumn, TableIndex } from 'typeorm';
import { intColumn, msColumn, stringColumn, textColumn } from './columns';

const COPY_CHUNK = 500;

/**
 * Attempts become rows of their own, appended by the dispatcher's batched writes instead of a JSON
 * array rewritten on every attempt; deliveries keep a count of them and whether they are a test.
 * Attempts stored in the old array are copied over.
 */
export class DeliveryAttempts1732300000000 implements MigrationInterface {
  name = 'DeliveryAttempts1732300000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.createTable(
      new Table({
        name: 'delivery_attempts',
        columns: [
          { ...stringColumn('delivery_id', 40), isPrimary: true },
          { ...intColumn('attempt_no'), isPrimary: true },
          stringColumn('webhook_id', 40),
          intColumn('account_id'),
          msColumn('at'),
          intColumn('duration_ms'),
          intColumn('http_status', true),
          stringColumn('error', 32, true),
          textColumn(runner, 'response_body'),
          // JSON object of the headers sent, names in lowercase
          textColumn(runner, 'request_headers', true),
        ],
        indices: [new TableIndex({ name: 'ix_delivery_attempts_webhook_at', columnNames: ['webhook_id', 'at'] })],
      }),
    );
    await runner.addColumns('deliveries', [
      new TableColumn(intColumn('attempt_count', false, 0)),
      new TableColumn(intColumn('is_test', false, 0)),
    ]);
    await copyAttempts(runner);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('deliveries', 'is_test');
    await runner.dropColumn('deliveries', 'attempt_count');
    await runner.dropTable('delivery_attempts');
  }
}

interface OldAttempt {
  at: number;
  durationMs: number;
  httpStatus: number | null;
  error: string | null;
  responseBody: string;
}

async function copyAttempts(runner: QueryRunner): Promise<void> {
  for (;;) {
    const rows = (await runner.query(`SELECT id, webhook_id, account_id, attempts FROM deliveries WHERE attempts <> '[]' ORDER BY id LIMIT ${COPY_CHUNK}`)) as Array<{
      id: string;
      webhook_id: string;
      account_id: number;
      attempts: string;
    }>;
    if (rows.length === 0) return;
    for (const row of rows) {
      const attempts = JSON.parse(row.attempts) as OldAttempt[];
      for (const [index, a] of attempts.entries()) {
        await runner.query(
          'INSERT INTO delivery_attempts (delivery_id, attempt_no, webhook_id, account_id, at, duration_ms, http_status, error, response_body, request_headers) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)',
          [row.id, index + 1, row.webhook_id, row.account_id, a.at, a.durationMs, a.httpStatus, a.error, a.responseBody],
        );
      }
      await runner.query(`UPDATE deliveries SET attempts = '[]', attempt_count = ? WHERE id = ?`, [attempts.length, row.id]);
    }
  }
}
