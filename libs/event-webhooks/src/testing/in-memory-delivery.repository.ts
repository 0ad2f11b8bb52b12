import { Delivery, DeliveryStatus, DELIVERY_TRANSITIONS as T, isWaiting, RECOVERABLE_STATUSES } from '../deliveries/delivery';
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
} from '../deliveries/delivery.repository';
import { isCurrentWork, nextSeq, rescheduledWork, seqUnchanged } from '../../../kernel/src';
import type { Webhook } from '../webhooks/webhook';
import { InMemoryEventRepository } from './in-memory-event.repository';

interface Row extends Delivery {
  claimToken: string | null;
}

export class InMemoryDeliveryRepository extends DeliveryRepository {
  readonly rows = new Map<string, Row>();
  /** Told of the deliveries retention purged (with their attempts), as they go. */
  readonly purgeListeners: Array<(purged: Delivery[]) => void> = [];

  constructor(
    private readonly events: InMemoryEventRepository,
    /** The webhook as the delivery reads join it (version: its updatedAt), null when it is gone. */
    private readonly webhookOf: (webhookId: string) => Pick<Webhook, 'updatedAt' | 'pausedUntil'> | null = () => ({ updatedAt: new Date(0), pausedUntil: null }),
  ) {
    super();
    events.deliveriesOf = (accountId, eventId) => [...this.rows.values()].filter((r) => r.accountId === accountId && r.eventId === eventId);
    events.deleteDeliveries = (ids) => {
      const purged = ids.flatMap((id) => this.rows.get(id) ?? []);
      ids.forEach((id) => this.rows.delete(id));
      for (const listener of this.purgeListeners) listener(purged);
    };
  }

  async insertMany(deliveries: NewDelivery[]) {
    for (const d of deliveries) {
      if (this.rows.has(d.id) || [...this.rows.values()].some((r) => r.eventId === d.eventId && r.webhookId === d.webhookId)) {
        throw new Error(`duplicate delivery ${d.id}`);
      }
      this.rows.set(d.id, { ...structuredClone(d), attempts: [], claimedUntil: null, claimToken: null });
    }
  }
  async findForWebhook(webhookId: string, id: string) {
    const row = this.rows.get(id);
    return row && row.webhookId === webhookId ? this.copy(row) : null;
  }
  async listForWebhook(webhookId: string, { status, limit, beforeId }: DeliveryPageQuery) {
    return [...this.rows.values()]
      .filter((r) => r.webhookId === webhookId && (!status || r.status === status) && (!beforeId || r.id < beforeId))
      .sort((a, b) => (a.id < b.id ? 1 : -1))
      .slice(0, limit)
      .map((r) => this.copy(r));
  }
  async listForEvent(accountId: number, eventId: string) {
    return [...this.rows.values()]
      .filter((r) => r.accountId === accountId && r.eventId === eventId)
      .sort((a, b) => (a.webhookId < b.webhookId ? -1 : 1))
      .map((r) => this.copy(r));
  }
  async findForDispatch(ids: string[]): Promise<DispatchJob[]> {
    return ids
      .map((id) => this.rows.get(id))
      .filter((row): row is Row => row !== undefined)
      .map((row) => {
        const { attempts: _attempts, ...delivery } = this.copy(row);
        const webhook = this.webhookOf(row.webhookId);
        return {
          delivery,
          webhookVersion: webhook ? webhook.updatedAt.getTime() : null,
          webhookPausedUntil: webhook?.pausedUntil ?? null,
        };
      });
  }
  async claimMany(claims: ClaimRequest[], now: Date, leaseUntil: Date, token: string) {
    const won = new Map<string, WonClaim>();
    for (const { id, seq } of claims) {
      const row = this.rows.get(id);
      if (!row || !isCurrentWork(row, isWaiting(row.status), seq) || (row.nextAttemptAt && row.nextAttemptAt > now) || this.claimed(row, now)) continue;
      Object.assign(row, { claimedUntil: leaseUntil, claimToken: token });
      const body = this.events.find(row.accountId, row.eventId)?.bodies[row.apiVersion];
      if (body === undefined) continue;
      const webhook = this.webhookOf(row.webhookId);
      const { attempts: _attempts, ...delivery } = this.copy(row);
      won.set(id, { delivery, body, webhookVersion: webhook ? webhook.updatedAt.getTime() : null, webhookPausedUntil: webhook?.pausedUntil ?? null });
    }
    return won;
  }
  async releaseClaim(id: string, token: string, at: Date) {
    const row = this.rows.get(id);
    if (!row || row.claimToken !== token) return false;
    Object.assign(row, { claimedUntil: null, claimToken: null, nextAttemptAt: new Date(at.getTime()) });
    return true;
  }
  async heldClaims(claims: HeldClaim[]) {
    const held = new Map<string, DeliveryStatus>();
    for (const c of claims) {
      const row = this.rows.get(c.id);
      if (row !== undefined && row.claimToken === c.token && seqUnchanged(row.seq, c.seq)) held.set(c.id, row.status);
    }
    return held;
  }
  async recordAttempts(records: RecordedAttempt[]) {
    for (const { deliveryId, attempt, outcome } of records) {
      const row = this.rows.get(deliveryId)!;
      Object.assign(row, outcome, {
        attempts: [...row.attempts, structuredClone(attempt)],
        attemptCount: row.attemptCount + 1,
        seq: nextSeq(row.seq),
        claimedUntil: null,
        claimToken: null,
      });
    }
  }
  async settle(id: string, seq: number, status: 'skipped' | 'cancelled', now: Date) {
    const row = this.rows.get(id);
    if (!row || !isCurrentWork(row, isWaiting(row.status), seq) || this.claimed(row, now)) return false;
    Object.assign(row, { status, nextAttemptAt: null });
    return true;
  }
  async rescheduleStale(staleBefore: Date, now: Date, limit: number) {
    const rows = [...this.rows.values()]
      .filter((r) => isWaiting(r.status) && r.nextAttemptAt !== null && r.nextAttemptAt < staleBefore && !this.claimed(r, now))
      .slice(0, limit);
    return rescheduledWork(rows, now).map(({ id, seq, at }) => {
      Object.assign(this.rows.get(id)!, { nextAttemptAt: at, seq });
      return { id, seq, nextAttemptAt: at };
    });
  }
  async abandon(id: string) {
    const row = this.rows.get(id);
    if (!row || !isWaiting(row.status)) return false;
    Object.assign(row, { status: T.abandonedTo, nextAttemptAt: null, claimedUntil: null, claimToken: null, seq: nextSeq(row.seq) });
    return true;
  }
  async postpone(postponements: Postponement[]) {
    for (const { id, seq, at } of postponements) {
      const row = this.rows.get(id);
      if (row && row.seq === seq && isWaiting(row.status)) row.nextAttemptAt = new Date(at.getTime());
    }
  }
  async settleWaiting(webhookId: string, status: 'skipped' | 'cancelled') {
    const rows = [...this.rows.values()].filter((r) => r.webhookId === webhookId && isWaiting(r.status));
    rows.forEach((r) => Object.assign(r, { status, nextAttemptAt: null }));
    return rows.length;
  }
  async scheduleNow(id: string, now: Date, retryStepIfFinal: number): Promise<ScheduledDelivery | null> {
    const row = this.rows.get(id);
    if (!row || row.status === T.retryNowNever || this.claimed(row, now)) return null;
    if (!isWaiting(row.status)) Object.assign(row, { status: T.retryNowFinalTo, retryStep: retryStepIfFinal });
    else row.retryStep = Math.max(0, row.retryStep - 1);
    Object.assign(row, { nextAttemptAt: now, seq: nextSeq(row.seq) });
    return { id, seq: row.seq, nextAttemptAt: now };
  }
  async recover(webhookId: string, since: Date, afterId: string, now: Date, limit: number) {
    const rows = [...this.rows.values()]
      .filter((r) => r.webhookId === webhookId && RECOVERABLE_STATUSES.includes(r.status) && r.createdAt >= since && r.id > afterId && !this.claimed(r, now))
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .slice(0, limit);
    return rows.map((r) => {
      Object.assign(r, { status: T.recoveredTo, nextAttemptAt: now, retryStep: 0, seq: nextSeq(r.seq) });
      return { id: r.id, seq: r.seq, nextAttemptAt: now };
    });
  }

  async waitingSummary(): Promise<WaitingSummary> {
    const waiting = [...this.rows.values()].filter((r) => isWaiting(r.status));
    const dues = waiting.map((r) => (r.nextAttemptAt ?? r.createdAt).getTime());
    return {
      pending: waiting.filter((r) => r.status === 'pending').length,
      retrying: waiting.filter((r) => r.status === 'retrying').length,
      oldestDueAt: dues.length === 0 ? null : new Date(Math.min(...dues)),
    };
  }

  private claimed(row: Row, now: Date): boolean {
    return row.claimToken !== null && row.claimedUntil !== null && row.claimedUntil > now;
  }

  private copy(row: Row): Delivery {
    const { claimToken: _token, ...delivery } = structuredClone(row);
    return delivery;
  }
}
