import type { TransportErrorKind } from '../../../../kernel/src';
import { Attempt, AttemptOutcome, Delivery, DeliveryStatus, RECOVERABLE_STATUSES, WAITING_STATUSES } from '../../../../event-webhooks/src/deliveries/delivery';
import { DeliveryPageQuery, DeliveryRepository, DispatchJob, NewDelivery, ScheduledDelivery } from '../../../../event-webhooks/src/deliveries/delivery.repository';
import type { ApiFamily } from '../../../../event-webhooks/src/webhooks/webhook';
import { TypeormDatabase } from '../typeorm-database';
import { dateOrNull, insertRows, placeholders } from './multi-row-insert';

interface DeliveryRow {
  id: string;
  webhook_id: string;
  account_id: number | string;
  event_id: string;
  event_type: string;
  api_version: ApiFamily;
  status: DeliveryStatus;
  attempts: string;
  retry_step: number | string;
  seq: number | string;
  next_attempt_at: number | string | null;
  claimed_until: number | string | null;
  created_at: number | string;
}

interface StoredAttempt {
  at: number;
  durationMs: number;
  httpStatus: number | null;
  error: TransportErrorKind | null;
  responseBody: string;
}

const COLUMNS = 'id, webhook_id, account_id, event_id, event_type, api_version, status, attempts, retry_step, seq, next_attempt_at, claimed_until, created_at';
const INSERT_COLUMNS = ['id', 'webhook_id', 'account_id', 'event_id', 'event_type', 'api_version', 'status', 'attempts', 'retry_step', 'seq', 'next_attempt_at', 'created_at'];
const WAITING = WAITING_STATUSES.map((s) => `'${s}'`).join(', ');
const RECOVERABLE = RECOVERABLE_STATUSES.map((s) => `'${s}'`).join(', ');
/** Not leased, or its lease ran out (the dispatcher holding it died). */
const UNCLAIMED = '(claimed_until IS NULL OR claimed_until <= ?)';

function toDelivery(row: DeliveryRow): Delivery {
  return {
    id: row.id,
    webhookId: row.webhook_id,
    accountId: Number(row.account_id),
    eventId: row.event_id,
    eventType: row.event_type,
    apiVersion: row.api_version,
    status: row.status,
    attempts: (JSON.parse(row.attempts) as StoredAttempt[]).map((a) => ({ ...a, at: new Date(a.at) })),
    nextAttemptAt: dateOrNull(row.next_attempt_at),
    createdAt: new Date(Number(row.created_at)),
    retryStep: Number(row.retry_step),
    seq: Number(row.seq),
    claimedUntil: dateOrNull(row.claimed_until),
  };
}

const storedAttempts = (attempts: Attempt[]): string => JSON.stringify(attempts.map((a): StoredAttempt => ({ ...a, at: a.at.getTime() })));

export class TypeormDeliveryRepository extends DeliveryRepository {
  constructor(private readonly db: TypeormDatabase) {
    super();
  }

  async insertMany(deliveries: NewDelivery[]): Promise<void> {
    const rows = deliveries.map((d) => [
      d.id,
      d.webhookId,
      d.accountId,
      d.eventId,
      d.eventType,
      d.apiVersion,
      d.status,
      '[]',
      d.retryStep,
      d.seq,
      d.nextAttemptAt?.getTime() ?? null,
      d.createdAt.getTime(),
    ]);
    await insertRows(this.db, 'deliveries', INSERT_COLUMNS, rows);
  }

  async findForWebhook(webhookId: string, id: string): Promise<Delivery | null> {
    const [row] = await this.db.query<DeliveryRow>(`SELECT ${COLUMNS} FROM deliveries WHERE id = ? AND webhook_id = ?`, [id, webhookId]);
    return row ? toDelivery(row) : null;
  }

  async listForWebhook(webhookId: string, { status, limit, beforeId }: DeliveryPageQuery): Promise<Delivery[]> {
    const where = ['webhook_id = ?'];
    const params: unknown[] = [webhookId];
    if (status) {
      where.push('status = ?');
      params.push(status);
    }
    if (beforeId) {
      where.push('id < ?');
      params.push(beforeId);
    }
    const rows = await this.db.query<DeliveryRow>(`SELECT ${COLUMNS} FROM deliveries WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT ${Math.trunc(limit)}`, params);
    return rows.map(toDelivery);
  }

  async findForDispatch(id: string): Promise<DispatchJob | null> {
    const [row] = await this.db.query<DeliveryRow & { body: string | null }>(
      `SELECT ${COLUMNS.split(', ').map((c) => `d.${c}`).join(', ')}, CASE d.api_version WHEN 'v2' THEN e.body_v2 ELSE e.body_v3 END AS body
       FROM deliveries d JOIN events e ON e.account_id = d.account_id AND e.id = d.event_id WHERE d.id = ?`,
      [id],
    );
    if (!row || row.body === null) return null;
    return { delivery: toDelivery(row), body: row.body };
  }

  async claim(id: string, seq: number, now: Date, leaseUntil: Date, token: string): Promise<boolean> {
    const { affected } = await this.db.exec(
      `UPDATE deliveries SET claimed_until = ?, claim_token = ?
       WHERE id = ? AND seq = ? AND status IN (${WAITING}) AND (next_attempt_at IS NULL OR next_attempt_at <= ?) AND ${UNCLAIMED}`,
      [leaseUntil.getTime(), token, id, seq, now.getTime(), now.getTime()],
    );
    return affected === 1;
  }

  async recordAttempt(id: string, claimToken: string, attempts: Attempt[], outcome: AttemptOutcome): Promise<boolean> {
    const { affected } = await this.db.exec(
      `UPDATE deliveries SET status = ?, attempts = ?, next_attempt_at = ?, retry_step = ?, seq = seq + 1, claimed_until = NULL, claim_token = NULL
       WHERE id = ? AND claim_token = ?`,
      [outcome.status, storedAttempts(attempts), outcome.nextAttemptAt?.getTime() ?? null, outcome.retryStep, id, claimToken],
    );
    return affected === 1;
  }

  async settle(id: string, seq: number, status: 'skipped' | 'cancelled', now: Date): Promise<boolean> {
    const { affected } = await this.db.exec(
      `UPDATE deliveries SET status = ?, next_attempt_at = NULL WHERE id = ? AND seq = ? AND status IN (${WAITING}) AND ${UNCLAIMED}`,
      [status, id, seq, now.getTime()],
    );
    return affected === 1;
  }

  async settleWaiting(webhookId: string, status: 'skipped' | 'cancelled'): Promise<number> {
    const { affected } = await this.db.exec(`UPDATE deliveries SET status = ?, next_attempt_at = NULL WHERE webhook_id = ? AND status IN (${WAITING})`, [status, webhookId]);
    return affected;
  }

  async scheduleNow(id: string, now: Date, retryStepIfFinal: number): Promise<ScheduledDelivery | null> {
    // MySQL assigns left to right, each seeing the columns already assigned: retry_step is set
    // before status so that both CASEs read the status the row had.
    const { affected } = await this.db.exec(
      `UPDATE deliveries SET
         retry_step = CASE WHEN status IN (${WAITING}) THEN retry_step ELSE ? END,
         status = CASE WHEN status IN (${WAITING}) THEN status ELSE 'pending' END,
         next_attempt_at = ?, seq = seq + 1
       WHERE id = ? AND status <> 'cancelled' AND ${UNCLAIMED}`,
      [retryStepIfFinal, now.getTime(), id, now.getTime()],
    );
    if (affected !== 1) return null;
    const [row] = await this.db.query<Pick<DeliveryRow, 'seq'>>('SELECT seq FROM deliveries WHERE id = ?', [id]);
    return { id, seq: Number(row.seq), nextAttemptAt: now };
  }

  async recover(webhookId: string, since: Date, afterId: string, now: Date, limit: number): Promise<ScheduledDelivery[]> {
    const mysql = this.db.dialect === 'mysql';
    // SQLite has no FOR UPDATE: writing first takes the database's write lock for the rest of the
    // transaction, so the rows selected below cannot change before they are updated.
    if (!mysql) await this.db.exec('UPDATE webhooks SET updated_at = updated_at WHERE id = ?', [webhookId]);
    const rows = await this.db.query<Pick<DeliveryRow, 'id' | 'seq'>>(
      `SELECT id, seq FROM deliveries
       WHERE webhook_id = ? AND status IN (${RECOVERABLE}) AND created_at >= ? AND id > ? AND ${UNCLAIMED}
       ORDER BY id LIMIT ${Math.trunc(limit)}${mysql ? ' FOR UPDATE' : ''}`,
      [webhookId, since.getTime(), afterId, now.getTime()],
    );
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    await this.db.exec(`UPDATE deliveries SET status = 'pending', next_attempt_at = ?, retry_step = 0, seq = seq + 1 WHERE id IN (${placeholders(ids)})`, [now.getTime(), ...ids]);
    return rows.map((r) => ({ id: r.id, seq: Number(r.seq) + 1, nextAttemptAt: now }));
  }
}
