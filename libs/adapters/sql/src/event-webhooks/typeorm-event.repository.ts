import { randomUUID } from 'node:crypto';
import { DeliveryStatus, WAITING_STATUSES } from '../../../../event-webhooks/src/deliveries/delivery';
import { eventKey, EventRepository, StoredEvent } from '../../../../event-webhooks/src/intake/event.repository';
import { statsRowsOf } from '../../../../event-webhooks/src/stats/webhook-stats';
import { readForUpdate, takeSqliteWriteLock } from '../read-for-update';
import { TypeormDatabase } from '../typeorm-database';
import { AttemptCounters } from './attempt-counters';
import { countedAttempt } from './delivery-rows';
import { insertRowsSkippingDuplicates, placeholders } from './multi-row-insert';
import { SettledDeliveryCounts } from './settled-delivery-counts';

const COLUMNS = ['id', 'account_id', 'type', 'created', 'received_at', 'intake_id', 'body_v3', 'body_v2'] as const;
const SELECT_CHUNK = 500;
const WAITING = WAITING_STATUSES.map((status) => `'${status}'`).join(', ');

export class TypeormEventRepository extends EventRepository {
  private readonly counts: SettledDeliveryCounts;
  private readonly attemptCounts: AttemptCounters;

  constructor(private readonly db: TypeormDatabase) {
    super();
    this.counts = new SettledDeliveryCounts(db);
    this.attemptCounts = new AttemptCounters(db);
  }

  /**
   * The insert skips ids already stored (skipDuplicates), including one a concurrent transaction is
   * inserting (it waits on that row's key); any other error fails it. When fewer rows went in than
   * were given, the rows tagged with this call's intake id are the ones it inserted.
   */
  async insertNew(events: StoredEvent[]): Promise<Set<string>> {
    if (events.length === 0) return new Set();
    const intakeId = randomUUID();
    const rows = events.map((e) => [e.id, e.accountId, e.type, e.created, e.receivedAt.getTime(), intakeId, e.bodies.v3 ?? null, e.bodies.v2 ?? null]);
    const inserted = await insertRowsSkippingDuplicates(this.db, 'events', COLUMNS, rows, 'id');
    const keys = new Set(events.map(eventKey));
    if (inserted === keys.size) return keys;
    if (inserted === 0) return new Set();
    const ids = [...new Set(events.map((e) => e.id))];
    const mine = new Set<string>();
    for (let i = 0; i < ids.length; i += SELECT_CHUNK) {
      const chunk = ids.slice(i, i + SELECT_CHUNK);
      const found = await this.db.query<{ id: string; account_id: number | string }>(
        `SELECT id, account_id FROM events WHERE id IN (${placeholders(chunk)}) AND intake_id = ?`,
        [...chunk, intakeId],
      );
      for (const row of found) mine.add(eventKey({ id: row.id, accountId: Number(row.account_id) }));
    }
    return mine;
  }

  /**
   * Events with a delivery still waiting (pending or retrying) are skipped: the event was accepted
   * and is owed its attempts; once they settle (the retry schedule is finite) a later run takes it.
   * The deliveries are read again under a lock (MySQL: FOR UPDATE; SQLite: a no-op write takes the
   * database's write lock before anything is read) so a retry asked for meanwhile keeps its event.
   */
  async deleteCreatedBefore(cutoffSeconds: number, limit: number): Promise<number> {
    await takeSqliteWriteLock(this.db, 'events');
    const events = await this.db.query<{ id: string; account_id: number | string }>(
      `SELECT e.id, e.account_id FROM events e
       WHERE e.created < ? AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id AND d.account_id = e.account_id AND d.status IN (${WAITING}))
       ORDER BY e.created LIMIT ${Math.max(1, Math.floor(limit))}`,
      [cutoffSeconds],
    );
    // Event ids are unique per account only: every delete names the account with the ids.
    const byAccount = new Map<number, string[]>();
    for (const row of events) byAccount.set(Number(row.account_id), [...(byAccount.get(Number(row.account_id)) ?? []), row.id]);
    let deleted = 0;
    for (const [accountId, candidates] of byAccount) {
      const rows = await readForUpdate<{ id: string; event_id: string; status: DeliveryStatus; webhook_id: string; created_at: number | string }>(this.db, {
        table: 'deliveries',
        columns: 'id, event_id, status, webhook_id, created_at',
        where: `event_id IN (${placeholders(candidates)}) AND account_id = ?`,
        params: [...candidates, accountId],
      });
      const owed = new Set(rows.filter((row) => (WAITING_STATUSES as readonly string[]).includes(row.status)).map((row) => row.event_id));
      const ids = candidates.filter((id) => !owed.has(id));
      if (ids.length === 0) continue;
      const doomed = rows.filter((row) => !owed.has(row.event_id));
      const deliveries = doomed.map((row) => row.id);
      if (deliveries.length > 0) {
        await this.takeOutAttempts(doomed);
        await this.db.exec(`DELETE FROM delivery_attempts WHERE delivery_id IN (${placeholders(deliveries)})`, deliveries);
        await this.db.exec(`DELETE FROM deliveries WHERE id IN (${placeholders(deliveries)})`, deliveries);
        await this.counts.apply(doomed.map((row) => ({ webhookId: row.webhook_id, createdAtMs: Number(row.created_at), from: row.status, to: null })));
      }
      deleted += (await this.db.exec(`DELETE FROM events WHERE id IN (${placeholders(ids)}) AND account_id = ?`, [...ids, accountId])).affected;
    }
    return deleted;
  }

  /** The attempts of deliveries about to be purged leave the stats counters with them (CONTRACT §9.3: "their attempts"). */
  private async takeOutAttempts(deliveries: Array<{ id: string; webhook_id: string; created_at: number | string }>): Promise<void> {
    const byId = new Map(deliveries.map((d) => [d.id, d]));
    const attempts = await this.db.query<{ delivery_id: string; duration_ms: number | string; http_status: number | string | null }>(
      `SELECT delivery_id, duration_ms, http_status FROM delivery_attempts WHERE delivery_id IN (${placeholders([...byId.keys()])})`,
      [...byId.keys()],
    );
    await this.attemptCounts.subtract(
      statsRowsOf(
        attempts.map((a) => {
          const delivery = byId.get(a.delivery_id)!;
          return countedAttempt(a, delivery.webhook_id, new Date(Number(delivery.created_at)));
        }),
      ),
    );
  }
}
