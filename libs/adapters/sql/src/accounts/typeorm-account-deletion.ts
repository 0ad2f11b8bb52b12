import { AccountDeletion } from '../../../../accounts/src';
import { placeholders } from '../event-webhooks/multi-row-insert';
import { QUEUE_TABLES } from '../queue-tables';
import { TypeormDatabase } from '../typeorm-database';
import { ACCOUNT_OWNED_TABLES, OwnedTable, QueuedWork } from './account-owned-tables';

type Row = Record<string, unknown>;

/** Rows of a top-level table deleted per transaction (their children and queued work go with them). */
export const DELETION_BATCH_ROWS = 500;
/** Values per `IN (...)` list: well under SQLite's bound-variable limit. */
const IN_LIST_MAX = 500;

/**
 * Deletes an account in short transactions rather than one long one, so that an account with
 * millions of rows never holds the SQLite writer lock, or MySQL row locks and undo, for minutes:
 *
 * 1. one statement sets `accounts.deleted_at`: from then on the account is invisible, its
 *    API keys stop authenticating (within the 5 s key cache elsewhere) and its trigger URLs at once;
 * 2. each table of ACCOUNT_OWNED_TABLES, in order, loses up to DELETION_BATCH_ROWS rows per
 *    transaction, with their child rows and waiting queue items; keys (hence trigger URLs,
 *    webhooks and targets) go in the first few transactions, before any large table;
 * 3. the account row stays until `finishDeletions`, ACCOUNT_DELETION_GRACE_MS later, runs the
 *    passes again (a request another process authenticated from its cache may have written
 *    meanwhile) and deletes it last.
 *
 * Rows are found by an indexed SELECT and deleted by key, so MySQL locks only the rows deleted.
 * If the process stops midway, the account stays invisible and `finishDeletions` ends the job.
 */
export class TypeormAccountDeletion extends AccountDeletion {
  constructor(
    private readonly db: TypeormDatabase,
    private readonly tables: readonly OwnedTable[] = ACCOUNT_OWNED_TABLES,
    private readonly batchRows = DELETION_BATCH_ROWS,
  ) {
    super();
  }

  async delete(accountId: number, at: Date): Promise<boolean> {
    const { affected } = await this.db.exec('UPDATE accounts SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL', [at.getTime(), accountId]);
    if (affected === 0) return false;
    await this.deleteOwned(accountId);
    return true;
  }

  async finishDeletions(deletedBefore: Date): Promise<number> {
    const due = await this.db.query<{ id: number | string }>('SELECT id FROM accounts WHERE deleted_at IS NOT NULL AND deleted_at <= ? ORDER BY id', [
      deletedBefore.getTime(),
    ]);
    for (const { id } of due) {
      await this.deleteOwned(Number(id));
      await this.db.exec('DELETE FROM accounts WHERE id = ? AND deleted_at IS NOT NULL', [Number(id)]);
    }
    return due.length;
  }

  private async deleteOwned(accountId: number): Promise<void> {
    for (const table of this.tables) await this.deleteAll(accountId, table);
  }

  private async deleteAll(accountId: number, table: OwnedTable): Promise<void> {
    for (;;) {
      const deleted = await this.db.transaction(async () => {
        const rows = await this.db.query(`SELECT ${columnsOf(table)} FROM ${table.table} WHERE account_id = ? LIMIT ?`, [accountId, this.batchRows]);
        await this.deleteRows(accountId, table, rows);
        return rows.length;
      });
      if (deleted < this.batchRows) return;
    }
  }

  /** Deletes these rows of `table`, their children first. */
  private async deleteRows(accountId: number, table: OwnedTable, rows: Row[]): Promise<void> {
    if (rows.length === 0) return;
    for (const child of table.children ?? []) {
      if ('topic' in child) await this.deleteQueued(child, rows);
      else await this.deleteChildren(accountId, child, rows.map((r) => r[table.key]));
    }
    await this.deleteWhereIn(accountId, table, table.key, rows.map((r) => r[table.key]));
  }

  private async deleteChildren(accountId: number, child: OwnedTable, parentKeys: unknown[]): Promise<void> {
    const parentColumn = (child.owner as { parentColumn: string }).parentColumn;
    if (!child.children?.length) {
      await this.deleteWhereIn(accountId, child, parentColumn, parentKeys);
      return;
    }
    for (const keys of chunks(parentKeys)) {
      const rows = await this.db.query(`SELECT ${columnsOf(child)} FROM ${child.table} WHERE ${parentColumn} IN (${placeholders(keys)})${accountFilter(child)}`, [
        ...keys,
        ...accountParam(child, accountId),
      ]);
      for (const part of chunks(rows)) await this.deleteRows(accountId, child, part);
    }
  }

  private async deleteWhereIn(accountId: number, table: OwnedTable, column: string, values: unknown[]): Promise<void> {
    for (const part of chunks(values)) {
      await this.db.exec(`DELETE FROM ${table.table} WHERE ${column} IN (${placeholders(part)})${accountFilter(table)}`, [...part, ...accountParam(table, accountId)]);
    }
  }

  private async deleteQueued(work: QueuedWork, rows: Row[]): Promise<void> {
    for (const part of chunks(rows.map(work.dedupKey))) {
      for (const queueTable of QUEUE_TABLES) {
        await this.db.exec(`DELETE FROM ${queueTable} WHERE topic = ? AND dedup_key IN (${placeholders(part)})`, [work.topic, ...part]);
      }
    }
  }
}

const columnsOf = (table: OwnedTable): string => [table.key, ...(table.read ?? [])].join(', ');
const accountFilter = (table: OwnedTable): string => (table.accountColumn ? ' AND account_id = ?' : '');
const accountParam = (table: OwnedTable, accountId: number): number[] => (table.accountColumn ? [accountId] : []);

function chunks<T>(values: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < values.length; i += IN_LIST_MAX) out.push(values.slice(i, i + IN_LIST_MAX));
  return out;
}
