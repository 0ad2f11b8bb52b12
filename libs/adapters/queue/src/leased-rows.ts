import { randomUUID } from 'node:crypto';
import type { QueueBacklog } from '../../../kernel/src';
import { LEASE_WRITE, TypeormDatabase } from '../../sql/src/typeorm-database';

/**
 * The lease-claim SQL shared by the database queue (`work_items`) and the NATS outbox relay
 * (`outbox`). A row is free when `available_at <= now`; claiming it moves `available_at` to the
 * lease expiry and stamps a fresh `lease_token`, so a row whose worker died becomes free again
 * by itself. Every later write names the token, so a worker that lost its lease changes nothing.
 */
export interface NewLeasedRow {
  id: string;
  topic: string;
  payload: string;
  dedupKey: string | null;
  availableAt: number;
  /** Handler failures so far (a retry carries them on). */
  failures?: number;
  /** Table-specific columns (see LeasedTable.extraColumns). */
  extra?: Record<string, string | number>;
}

export interface Reschedule {
  id: string;
  token: string;
  atMs: number;
  /** A handler failure, counted on the row. */
  failed: boolean;
}

export interface ClaimedRow {
  id: string;
  topic: string;
  payload: string;
  /** Claims so far, this one included. */
  deliveryCount: number;
  /** Times a handler threw on it so far. */
  failures: number;
  token: string;
  extra: Record<string, unknown>;
}

export interface LeasedTable {
  name: 'work_items' | 'outbox';
  extraColumns: readonly string[];
}

/** Rows per INSERT: at most 1000 rows of ~12 columns, well under SQLite's 32766 bound variables. */
const INSERT_CHUNK = 1000;

export class LeasedRows {
  private readonly columns: string;

  constructor(
    private readonly db: TypeormDatabase,
    private readonly table: LeasedTable,
  ) {
    this.columns = ['id', 'topic', 'payload', 'delivery_count', 'failures', ...table.extraColumns].join(', ');
  }

  /** Rows by topic, with the earliest `available_at` of each. */
  async backlog(): Promise<QueueBacklog> {
    const rows = await this.db.query<{ topic: string; n: unknown; oldest: unknown }>(
      `SELECT topic, COUNT(*) AS n, MIN(available_at) AS oldest FROM ${this.table.name} GROUP BY topic`,
    );
    return {
      store: this.table.name,
      topics: rows.map((r) => ({ topic: r.topic, items: Number(r.n), oldestDueAt: r.oldest === null ? null : new Date(Number(r.oldest)) })),
    };
  }

  /** The earliest `available_at` of a topic's rows (a row being worked on has its lease's end there), or null when it has none. */
  async oldestAvailable(topic: string): Promise<Date | null> {
    const [row] = await this.db.query<{ oldest: unknown }>(`SELECT MIN(available_at) AS oldest FROM ${this.table.name} WHERE topic = ?`, [topic]);
    return row?.oldest === null || row?.oldest === undefined ? null : new Date(Number(row.oldest));
  }

  /** Inserts in the ambient transaction; a row whose (topic, dedup key) is already stored is skipped. */
  async insert(rows: NewLeasedRow[], nowMs: number): Promise<void> {
    const keyed = rows.filter((r) => r.dedupKey !== null);
    const plain = rows.filter((r) => r.dedupKey === null);
    // Plain rows get a plain INSERT; keyed rows skip a stored (topic, dedup key) and nothing else.
    for (const [batch, skipDuplicates] of [
      [plain, false],
      [keyed, true],
    ] as const) {
      for (let i = 0; i < batch.length; i += INSERT_CHUNK) await this.insertChunk(batch.slice(i, i + INSERT_CHUNK), skipDuplicates, nowMs);
    }
  }

  private async insertChunk(rows: NewLeasedRow[], skipDuplicates: boolean, nowMs: number): Promise<void> {
    if (rows.length === 0) return;
    const extra = this.table.extraColumns;
    const names = ['id', 'topic', 'payload', 'dedup_key', 'available_at', 'lease_token', 'delivery_count', 'failures', 'created_at', ...extra];
    const tuple = `(${names.map(() => '?').join(', ')})`;
    const params: unknown[] = [];
    for (const r of rows) {
      params.push(r.id, r.topic, r.payload, r.dedupKey, r.availableAt, null, 0, r.failures ?? 0, nowMs);
      for (const column of extra) params.push(r.extra?.[column] ?? null);
    }
    const insert = `INSERT INTO ${this.table.name} (${names.join(', ')}) VALUES ${rows.map(() => tuple).join(', ')}`;
    await this.db.write(skipDuplicates ? `${insert}${this.db.skipDuplicates('id')}` : insert, params);
  }

  /** Cheap non-locking look before a claim, so idle polls never take a write lock. */
  async hasDue(topic: string | null, nowMs: number): Promise<boolean> {
    const [where, params] = this.dueFilter(topic, nowMs);
    const rows = await this.db.query(`SELECT 1 AS due FROM ${this.table.name} WHERE ${where} LIMIT 1`, params);
    return rows.length > 0;
  }

  /** Leases up to `limit` due rows (oldest due first) until `nowMs + leaseMs`. */
  async claim(topic: string | null, limit: number, nowMs: number, leaseMs: number): Promise<ClaimedRow[]> {
    if (limit <= 0) return [];
    const token = randomUUID();
    const [where, params] = this.dueFilter(topic, nowMs);
    const set = 'available_at = ?, lease_token = ?, delivery_count = delivery_count + 1';
    const setParams = [nowMs + leaseMs, token];
    const pick = `SELECT id FROM ${this.table.name} WHERE ${where} ORDER BY available_at LIMIT ${Math.floor(limit)}`;
    let rows: Array<Record<string, unknown>>;
    if (this.db.dialect === 'sqlite') {
      // One statement takes SQLite's writer lock at once, which makes it atomic across processes.
      rows = await this.db.query(`UPDATE ${this.table.name} SET ${set} WHERE id IN (${pick}) RETURNING ${this.columns}`, [...setParams, ...params], LEASE_WRITE);
    } else {
      rows = await this.db.transaction(async () => {
        const picked = await this.db.query<{ id: string }>(`${pick} FOR UPDATE SKIP LOCKED`, params);
        if (picked.length === 0) return [];
        const ids = picked.map((r) => r.id);
        await this.db.write(`UPDATE ${this.table.name} SET ${set} WHERE id IN (${marks(ids)})`, [...setParams, ...ids]);
        return this.db.query(`SELECT ${this.columns} FROM ${this.table.name} WHERE id IN (${marks(ids)})`, ids);
      });
    }
    return rows.map((r) => this.toClaimed(r, token));
  }

  /** Extends the lease of rows still held under `token`; returns how many still are. */
  async renew(ids: string[], token: string, untilMs: number): Promise<number> {
    if (ids.length === 0) return 0;
    const result = await this.db.exec(`UPDATE ${this.table.name} SET available_at = ? WHERE id IN (${marks(ids)}) AND lease_token = ?`, [untilMs, ...ids, token], LEASE_WRITE);
    return result.affected;
  }

  /** Done with the row (ack). False when the lease was lost meanwhile. */
  async complete(id: string, token: string): Promise<boolean> {
    const result = await this.db.exec(`DELETE FROM ${this.table.name} WHERE id = ? AND lease_token = ?`, [id, token], LEASE_WRITE);
    return result.affected > 0;
  }

  /** Done with these rows (ack); returns the ids whose lease was still held. */
  async completeMany(rows: Array<Pick<ClaimedRow, 'id' | 'token'>>): Promise<Set<string>> {
    if (rows.length === 1) return (await this.complete(rows[0].id, rows[0].token)) ? new Set([rows[0].id]) : new Set();
    const ids = rows.map((r) => r.id);
    const tokens = [...new Set(rows.map((r) => r.token))];
    const where = `id IN (${marks(ids)}) AND lease_token IN (${marks(tokens)})`;
    const { affected } = await this.db.exec(`DELETE FROM ${this.table.name} WHERE ${where}`, [...ids, ...tokens], LEASE_WRITE);
    if (affected === rows.length) return new Set(ids);
    // Some leases ran out meanwhile: rows still there under another token were not ours to delete.
    const others = await this.db.query<{ id: string }>(`SELECT id FROM ${this.table.name} WHERE id IN (${marks(ids)})`, ids);
    const lost = new Set(others.map((r) => r.id));
    return new Set(ids.filter((id) => !lost.has(id)));
  }

  /** reschedule for many rows in one statement; returns the ids whose lease was still held. */
  async rescheduleMany(rows: Reschedule[]): Promise<Set<string>> {
    if (rows.length === 1) {
      const [{ id, token, atMs, failed }] = rows;
      return (await this.reschedule(id, token, atMs, failed)) ? new Set([id]) : new Set();
    }
    const ids = rows.map((r) => r.id);
    const tokens = [...new Set(rows.map((r) => r.token))];
    const byId = `CASE id ${rows.map(() => 'WHEN ? THEN ?').join(' ')} END`;
    const { affected } = await this.db.exec(
      `UPDATE ${this.table.name} SET available_at = ${byId}, lease_token = NULL, failures = failures + ${byId} WHERE id IN (${marks(ids)}) AND lease_token IN (${marks(tokens)})`,
      [...rows.flatMap((r) => [r.id, r.atMs]), ...rows.flatMap((r) => [r.id, r.failed ? 1 : 0]), ...ids, ...tokens],
    );
    if (affected === rows.length) return new Set(ids);
    // Some leases ran out meanwhile: those rows are gone or held under another token.
    const freed = await this.db.query<{ id: string }>(`SELECT id FROM ${this.table.name} WHERE id IN (${marks(ids)}) AND lease_token IS NULL`, ids);
    return new Set(freed.map((r) => r.id));
  }

  /** Frees the row again from `atMs` on, counting a handler failure when it was one. False when the lease was lost meanwhile. */
  async reschedule(id: string, token: string, atMs: number, failed = false): Promise<boolean> {
    const result = await this.db.exec(`UPDATE ${this.table.name} SET available_at = ?, lease_token = NULL, failures = failures + ? WHERE id = ? AND lease_token = ?`, [
      atMs,
      failed ? 1 : 0,
      id,
      token,
    ]);
    return result.affected > 0;
  }

  /** Gives leased rows back for anyone to take at once. */
  async release(ids: string[], token: string, nowMs: number): Promise<void> {
    if (ids.length === 0) return;
    await this.db.exec(`UPDATE ${this.table.name} SET available_at = ?, lease_token = NULL WHERE id IN (${marks(ids)}) AND lease_token = ?`, [nowMs, ...ids, token], LEASE_WRITE);
  }

  /** Rows among `ids` that exist and nobody holds (what the outbox fast path may still publish). */
  async unleased(ids: string[]): Promise<Array<Omit<ClaimedRow, 'token'>>> {
    if (ids.length === 0) return [];
    const rows = await this.db.query(`SELECT ${this.columns} FROM ${this.table.name} WHERE id IN (${marks(ids)}) AND lease_token IS NULL`, ids);
    return rows.map((r) => this.toClaimed(r, ''));
  }

  /**
   * Deletes rows no worker holds (the outbox fast path, after JetStream has them). A row a relay
   * claimed meanwhile is left to that relay: it publishes it again (stored once by msgID) and
   * deletes it under its own lease.
   */
  async deleteUnleased(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.exec(`DELETE FROM ${this.table.name} WHERE id IN (${marks(ids)}) AND lease_token IS NULL`, ids);
  }

  private dueFilter(topic: string | null, nowMs: number): [string, unknown[]] {
    return topic === null ? ['available_at <= ?', [nowMs]] : ['topic = ? AND available_at <= ?', [topic, nowMs]];
  }

  private toClaimed(row: Record<string, unknown>, token: string): ClaimedRow {
    const extra: Record<string, unknown> = {};
    for (const column of this.table.extraColumns) extra[column] = row[column];
    return {
      id: String(row.id),
      topic: String(row.topic),
      payload: String(row.payload),
      deliveryCount: Number(row.delivery_count),
      failures: Number(row.failures ?? 0),
      token,
      extra,
    };
  }
}

function marks(values: unknown[]): string {
  return values.map(() => '?').join(', ');
}
