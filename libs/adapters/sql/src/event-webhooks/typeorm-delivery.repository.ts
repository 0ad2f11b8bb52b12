import { Attempt, Delivery, DeliveryStatus, DELIVERY_TRANSITIONS as T, RECOVERABLE_STATUSES, WAITING_STATUSES } from '../../../../event-webhooks/src/deliveries/delivery';
import {
  ClaimRequest,
  DeliveryPageQuery,
  DeliveryRepository,
  DispatchJob,
  HeldClaim,
  NewDelivery,
  RecordedAttempt,
  ScheduledDelivery,
  Postponement,
  WaitingSummary,
  WonClaim,
} from '../../../../event-webhooks/src/deliveries/delivery.repository';
import { rescheduleStaleRows } from '../reschedule-stale';
import { readForUpdate } from '../read-for-update';
import { LEASE_WRITE, TypeormDatabase } from '../typeorm-database';
import { ATTEMPT_COLUMNS, AttemptRow, COLUMN_NAMES, COLUMNS, DeliveryRow, INSERT_COLUMNS, toAttempt, toDispatchDelivery } from './delivery-rows';
import { dateOrNull, insertRows, placeholders } from './multi-row-insert';
import { SettledDeliveryCounts } from './settled-delivery-counts';

const WAITING = WAITING_STATUSES.map((s) => `'${s}'`).join(', ');
const RECOVERABLE = RECOVERABLE_STATUSES.map((s) => `'${s}'`).join(', ');
/** Not leased, or its lease ran out (the dispatcher holding it died). */
const UNCLAIMED = '(claimed_until IS NULL OR claimed_until <= ?)';
/** The body a delivery (table alias `d`) sends: its event's (alias `e`) envelope in the delivery's API family. */
const BODY_OF = (d: string, e: string) => `CASE ${d}.api_version WHEN 'v2' THEN ${e}.body_v2 ELSE ${e}.body_v3 END`;

/** Every write that settles a delivery, brings it back to waiting or deletes it also moves its stats counter (SettledDeliveryCounts). */
export class TypeormDeliveryRepository extends DeliveryRepository {
  private readonly counts: SettledDeliveryCounts;

  constructor(private readonly db: TypeormDatabase) {
    super();
    this.counts = new SettledDeliveryCounts(db);
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
      '[]', // the attempts column of old; attempts are rows of delivery_attempts
      d.retryStep,
      d.seq,
      d.nextAttemptAt?.getTime() ?? null,
      d.createdAt.getTime(),
      d.attemptCount,
      d.test ? 1 : 0,
    ]);
    await this.db.transaction(async () => {
      await insertRows(this.db, 'deliveries', INSERT_COLUMNS, rows);
      await this.counts.apply(deliveries.map((d) => ({ webhookId: d.webhookId, createdAtMs: d.createdAt.getTime(), from: null, to: d.status })));
    });
  }

  async findForWebhook(webhookId: string, id: string): Promise<Delivery | null> {
    const [delivery] = await this.readWithAttempts(`SELECT ${COLUMNS} FROM deliveries WHERE id = ? AND webhook_id = ?`, [id, webhookId]);
    return delivery ?? null;
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
    return this.readWithAttempts(`SELECT ${COLUMNS} FROM deliveries WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT ${Math.trunc(limit)}`, params);
  }

  async listForEvent(accountId: number, eventId: string): Promise<Delivery[]> {
    return this.readWithAttempts(`SELECT ${COLUMNS} FROM deliveries WHERE event_id = ? AND account_id = ? ORDER BY webhook_id`, [eventId, accountId]);
  }

  /**
   * Deliveries and their attempts read in one transaction (one snapshot): read apart, an attempt
   * recorded between the two reads showed beside the delivery's status from before it (MariaDB, CI).
   */
  private readWithAttempts(sql: string, params: unknown[]): Promise<Delivery[]> {
    return this.db.transaction(async () => this.withAttempts(await this.db.query<DeliveryRow>(sql, params)), { durable: false });
  }

  async findForDispatch(ids: string[]): Promise<DispatchJob[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.query<DeliveryRow & { webhook_version: number | string | null; paused_until: number | string | null }>(
      `SELECT ${COLUMN_NAMES.map((c) => `d.${c}`).join(', ')}, w.updated_at AS webhook_version, w.paused_until
       FROM deliveries d
       LEFT JOIN webhooks w ON w.id = d.webhook_id
       WHERE d.id IN (${placeholders(ids)})`,
      ids,
    );
    return rows.map((row) => ({
      delivery: toDispatchDelivery(row),
      webhookVersion: row.webhook_version === null ? null : Number(row.webhook_version),
      webhookPausedUntil: dateOrNull(row.paused_until),
    }));
  }

  async claimMany(claims: ClaimRequest[], now: Date, leaseUntil: Date, token: string): Promise<Map<string, WonClaim>> {
    if (claims.length === 0) return new Map();
    const ids = claims.map((c) => c.id);
    const seqCase = `CASE id ${claims.map(() => 'WHEN ? THEN ?').join(' ')} END`;
    const claim = `UPDATE deliveries SET claimed_until = ?, claim_token = ?
       WHERE id IN (${placeholders(ids)}) AND seq = ${seqCase} AND ${this.db.filterOnly('status')} IN (${WAITING})
         AND (next_attempt_at IS NULL OR next_attempt_at <= ?) AND ${UNCLAIMED}`;
    const params = [leaseUntil.getTime(), token, ...ids, ...claims.flatMap((c) => [c.id, c.seq]), now.getTime(), now.getTime()];
    type Claimed = DeliveryRow & { body: string | null; webhook_version: number | string | null; paused_until: number | string | null };
    const won = (rows: Claimed[]) =>
      new Map(
        rows
          .filter((r) => r.body !== null)
          .map((r): [string, WonClaim] => [
            r.id,
            { delivery: toDispatchDelivery(r), body: r.body!, webhookVersion: r.webhook_version === null ? null : Number(r.webhook_version), webhookPausedUntil: dateOrNull(r.paused_until) },
          ]),
      );
    if (this.db.dialect === 'sqlite') {
      // SQLite returns what it claimed, with each body and webhook's version and pause, in the claim itself.
      const webhook = (column: string) => `(SELECT w.${column} FROM webhooks w WHERE w.id = deliveries.webhook_id)`;
      const body = `(SELECT ${BODY_OF('deliveries', 'e')} FROM events e WHERE e.account_id = deliveries.account_id AND e.id = deliveries.event_id)`;
      return won(
        await this.db.query<Claimed>(`${claim} RETURNING ${COLUMNS}, ${body} AS body, ${webhook('updated_at')} AS webhook_version, ${webhook('paused_until')} AS paused_until`, params, LEASE_WRITE),
      );
    }
    // MySQL: the claim, then what it won (by its token), in one round trip.
    const [, claimed] = await this.db.execAll<Claimed>(
      [
        { sql: claim, params },
        {
          sql: `SELECT ${COLUMN_NAMES.map((c) => `d.${c}`).join(', ')}, ${BODY_OF('d', 'e')} AS body, w.updated_at AS webhook_version, w.paused_until
         FROM deliveries d
         JOIN events e ON e.account_id = d.account_id AND e.id = d.event_id
         LEFT JOIN webhooks w ON w.id = d.webhook_id
         WHERE d.id IN (${placeholders(ids)}) AND d.claim_token = ?`,
          params: [...ids, token],
        },
      ],
      LEASE_WRITE,
    );
    return won(claimed.rows);
  }

  async releaseClaim(id: string, token: string, at: Date): Promise<boolean> {
    const { affected } = await this.db.exec('UPDATE deliveries SET claimed_until = NULL, claim_token = NULL, next_attempt_at = ? WHERE id = ? AND claim_token = ?', [at.getTime(), id, token]);
    return affected === 1;
  }

  async heldClaims(claims: HeldClaim[]): Promise<Map<string, DeliveryStatus>> {
    if (claims.length === 0) return new Map();
    const ids = claims.map((c) => c.id);
    const rows = await readForUpdate<{ id: string; claim_token: string | null; seq: number | string; status: DeliveryStatus }>(this.db, {
      table: 'deliveries',
      columns: 'id, claim_token, seq, status',
      where: `id IN (${placeholders(ids)})`,
      params: ids,
    });
    // Token and seq both: a delivery rescheduled since the claim (seq bumped) is no longer the claimant's.
    const byId = new Map(rows.map((r) => [r.id, r]));
    const held = new Map<string, DeliveryStatus>();
    for (const c of claims) {
      const row = byId.get(c.id);
      if (row !== undefined && row.claim_token === c.token && Number(row.seq) === c.seq) held.set(c.id, row.status);
    }
    return held;
  }

  async recordAttempts(records: RecordedAttempt[]): Promise<void> {
    if (records.length === 0) return;
    await insertRows(
      this.db,
      'delivery_attempts',
      ATTEMPT_COLUMNS,
      records.map(({ deliveryId, attemptNo, webhookId, accountId, attempt: a }) => [
        deliveryId,
        attemptNo,
        webhookId,
        accountId,
        a.at.getTime(),
        a.durationMs,
        a.httpStatus,
        a.error,
        a.responseBody,
        a.requestHeaders === null ? null : JSON.stringify(a.requestHeaders),
      ]),
    );
    // One statement per kind of outcome: every success alike, failures by their new status and step.
    const groups = new Map<string, RecordedAttempt[]>();
    for (const record of records) {
      const key = `${record.outcome.status}/${record.outcome.retryStep}`;
      groups.set(key, [...(groups.get(key) ?? []), record]);
    }
    for (const group of groups.values()) {
      const { status, retryStep } = group[0].outcome;
      const ids = group.map((r) => r.deliveryId);
      const timed = group.some((r) => r.outcome.nextAttemptAt !== null);
      const next = timed ? `CASE id ${group.map(() => 'WHEN ? THEN ?').join(' ')} END` : 'NULL';
      const nextParams = timed ? group.flatMap((r) => [r.deliveryId, r.outcome.nextAttemptAt?.getTime() ?? null]) : [];
      await this.db.write(
        `UPDATE deliveries SET status = ?, retry_step = ?, next_attempt_at = ${next}, attempt_count = attempt_count + 1, seq = seq + 1,
           claimed_until = NULL, claim_token = NULL
         WHERE id IN (${placeholders(ids)})`,
        [status, retryStep, ...nextParams, ...ids],
      );
    }
    // From the status heldClaims read under the same lock: one read of the rows per record, not two.
    await this.counts.apply(records.map((r) => ({ webhookId: r.webhookId, createdAtMs: r.deliveryCreatedAt.getTime(), from: r.formerStatus, to: r.outcome.status })));
  }

  async settle(id: string, seq: number, status: 'skipped' | 'cancelled', now: Date): Promise<boolean> {
    return this.settleOne(id, `UPDATE deliveries SET status = ?, next_attempt_at = NULL WHERE id = ? AND seq = ? AND status IN (${WAITING}) AND ${UNCLAIMED}`, [
      status,
      id,
      seq,
      now.getTime(),
    ]);
  }

  /** `update` settles the waiting delivery `id` if it still may be; its counter gains it in the same transaction. */
  private async settleOne(id: string, update: string, params: unknown[]): Promise<boolean> {
    return this.db.transaction(async () => {
      if ((await this.db.exec(update, params)).affected !== 1) return false;
      const [settled] = await this.counts.locked('id = ?', [id]);
      await this.counts.apply([{ webhookId: settled.webhookId, createdAtMs: settled.createdAtMs, from: null, to: settled.status }]);
      return true;
    });
  }

  async rescheduleStale(staleBefore: Date, now: Date, limit: number): Promise<ScheduledDelivery[]> {
    const rows = await rescheduleStaleRows(
      this.db,
      {
        table: 'deliveries',
        where: `status IN (${WAITING}) AND next_attempt_at < ? AND ${UNCLAIMED}`,
        params: [staleBefore.getTime(), now.getTime()],
        orderBy: 'status, next_attempt_at',
        dueColumn: 'next_attempt_at',
      },
      now,
      limit,
    );
    return rows.map(({ id, seq, at }) => ({ id, seq, nextAttemptAt: at }));
  }

  async abandon(id: string): Promise<boolean> {
    return this.settleOne(
      id,
      `UPDATE deliveries SET status = '${T.abandonedTo}', next_attempt_at = NULL, claimed_until = NULL, claim_token = NULL, seq = seq + 1 WHERE id = ? AND status IN (${WAITING})`,
      [id],
    );
  }

  async postpone(postponements: Postponement[]): Promise<void> {
    if (postponements.length === 0) return;
    const ids = postponements.map((p) => p.id);
    const byId = `CASE id ${postponements.map(() => 'WHEN ? THEN ?').join(' ')} END`;
    await this.db.exec(
      `UPDATE deliveries SET next_attempt_at = ${byId} WHERE id IN (${placeholders(ids)}) AND seq = ${byId} AND ${this.db.filterOnly('status')} IN (${WAITING})`,
      [...postponements.flatMap((p) => [p.id, p.at.getTime()]), ...ids, ...postponements.flatMap((p) => [p.id, p.seq])],
    );
  }

  async settleWaiting(webhookId: string, status: 'skipped' | 'cancelled'): Promise<number> {
    return this.db.transaction(async () => {
      const waiting = await this.counts.lockedGroups(`webhook_id = ? AND status IN (${WAITING})`, [webhookId]);
      const { affected } = await this.db.exec(`UPDATE deliveries SET status = ?, next_attempt_at = NULL WHERE webhook_id = ? AND status IN (${WAITING})`, [status, webhookId]);
      await this.counts.add(waiting.map((group) => ({ ...group, status })));
      return affected;
    });
  }

  async scheduleNow(id: string, now: Date, retryStepIfFinal: number): Promise<ScheduledDelivery | null> {
    // MySQL assigns left to right, each seeing the columns already assigned: retry_step is set
    // before status so that both CASEs read the status the row had. A waiting delivery steps back one
    // place in its schedule, so that the attempt made now is one more, not one of the schedule's.
    return this.db.transaction(async () => {
      const [had] = await this.counts.locked('id = ?', [id]);
      if (!had) return null;
      const { affected } = await this.db.exec(
        `UPDATE deliveries SET
           retry_step = CASE WHEN status IN (${WAITING}) THEN (CASE WHEN retry_step > 0 THEN retry_step - 1 ELSE 0 END) ELSE ? END,
           status = CASE WHEN status IN (${WAITING}) THEN status ELSE '${T.retryNowFinalTo}' END,
           next_attempt_at = ?, seq = seq + 1
         WHERE id = ? AND status <> '${T.retryNowNever}' AND ${UNCLAIMED}`,
        [retryStepIfFinal, now.getTime(), id, now.getTime()],
      );
      if (affected !== 1) return null;
      const [row] = await this.db.query<Pick<DeliveryRow, 'seq' | 'status'>>('SELECT seq, status FROM deliveries WHERE id = ?', [id]);
      await this.counts.apply([{ webhookId: had.webhookId, createdAtMs: had.createdAtMs, from: had.status, to: row.status }]);
      return { id, seq: Number(row.seq), nextAttemptAt: now };
    });
  }

  async waitingSummary(): Promise<WaitingSummary> {
    const rows = await this.db.query<{ status: string; n: unknown; due: unknown }>(
      `SELECT status, COUNT(*) AS n, MIN(COALESCE(next_attempt_at, created_at)) AS due FROM deliveries WHERE status IN (${WAITING}) GROUP BY status`,
    );
    const count = (status: string) => Number(rows.find((r) => r.status === status)?.n ?? 0);
    const dues = rows.filter((r) => r.due !== null).map((r) => Number(r.due));
    return { pending: count('pending'), retrying: count('retrying'), oldestDueAt: dues.length === 0 ? null : new Date(Math.min(...dues)) };
  }

  async recover(webhookId: string, since: Date, afterId: string, now: Date, limit: number): Promise<ScheduledDelivery[]> {
    const rows = await readForUpdate<Pick<DeliveryRow, 'id' | 'seq' | 'webhook_id' | 'created_at' | 'status'>>(this.db, {
      table: 'deliveries',
      columns: 'id, seq, webhook_id, created_at, status',
      where: `webhook_id = ? AND status IN (${RECOVERABLE}) AND created_at >= ? AND id > ? AND ${UNCLAIMED}`,
      params: [webhookId, since.getTime(), afterId, now.getTime()],
      then: `ORDER BY id LIMIT ${Math.trunc(limit)}`,
    });
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    await this.db.exec(`UPDATE deliveries SET status = '${T.recoveredTo}', next_attempt_at = ?, retry_step = 0, seq = seq + 1 WHERE id IN (${placeholders(ids)})`, [now.getTime(), ...ids]);
    await this.counts.apply(rows.map((r) => ({ webhookId: r.webhook_id, createdAtMs: Number(r.created_at), from: r.status, to: T.recoveredTo })));
    return rows.map((r) => ({ id: r.id, seq: Number(r.seq) + 1, nextAttemptAt: now }));
  }

  private async withAttempts(rows: DeliveryRow[]): Promise<Delivery[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    const attempts = await this.db.query<AttemptRow>(
      `SELECT delivery_id, at, duration_ms, http_status, error, response_body, request_headers FROM delivery_attempts
       WHERE delivery_id IN (${placeholders(ids)}) ORDER BY delivery_id, attempt_no`,
      ids,
    );
    const byDelivery = new Map<string, Attempt[]>();
    for (const row of attempts) byDelivery.set(row.delivery_id, [...(byDelivery.get(row.delivery_id) ?? []), toAttempt(row)]);
    return rows.map((row) => ({ ...toDispatchDelivery(row), attempts: byDelivery.get(row.id) ?? [] }));
  }
}
