import { isSuccess } from '../../../kernel/src';
import type { Delivery, DeliveryStatus } from '../deliveries/delivery';
import { CountedAttempt, statsRowsOf } from '../stats/webhook-stats';
import { AttemptStatsRow, WebhookStatsRepository } from '../stats/webhook-stats.repository';
import { InMemoryDeliveryRepository } from './in-memory-delivery.repository';

const attemptsCounted = (d: Delivery): CountedAttempt[] =>
  d.attempts.map((a) => ({ webhookId: d.webhookId, deliveryCreatedAt: d.createdAt, durationMs: a.durationMs, success: isSuccess(a.httpStatus) }));

function countByStatus(deliveries: Delivery[]): Partial<Record<DeliveryStatus, number>> {
  const counts: Partial<Record<DeliveryStatus, number>> = {};
  for (const d of deliveries) counts[d.status] = (counts[d.status] ?? 0) + 1;
  return counts;
}

const keyOf = (r: Pick<AttemptStatsRow, 'webhookId' | 'hourStart' | 'latencyBucket'>) => `${r.webhookId}|${r.hourStart}|${r.latencyBucket}`;

/** Counters in a map; delivery counts read from the fake delivery repository's rows. */
export class InMemoryWebhookStatsRepository extends WebhookStatsRepository {
  readonly rows = new Map<string, AttemptStatsRow>();

  constructor(private readonly deliveries: InMemoryDeliveryRepository) {
    super();
    // Retention takes a purged delivery's attempts out of the counters, as the SQL adapter does.
    deliveries.purgeListeners.push((purged) => {
      for (const row of statsRowsOf(purged.flatMap(attemptsCounted))) {
        const kept = this.rows.get(keyOf(row));
        if (kept) this.rows.set(keyOf(row), { ...kept, succeeded: kept.succeeded - row.succeeded, failed: kept.failed - row.failed });
      }
    });
  }

  async add(rows: AttemptStatsRow[]) {
    for (const row of rows) {
      const kept = this.rows.get(keyOf(row)) ?? { ...row, succeeded: 0, failed: 0 };
      this.rows.set(keyOf(row), { ...kept, succeeded: kept.succeeded + row.succeeded, failed: kept.failed + row.failed });
    }
  }

  async read(webhookId: string, fromHour: number) {
    return [...this.rows.values()].filter((r) => r.webhookId === webhookId && r.hourStart >= fromHour).map((r) => ({ ...r }));
  }

  async countDeliveries(webhookId: string, fromHour: number) {
    return countByStatus(this.created(webhookId, fromHour, Infinity));
  }

  async countPartialHour(webhookId: string, from: number, untilHour: number) {
    const created = this.created(webhookId, from, untilHour);
    return { deliveries: countByStatus(created), attempts: statsRowsOf(created.flatMap(attemptsCounted)) };
  }

  /** The webhook's deliveries created from `from` until `until` (exclusive). */
  private created(webhookId: string, from: number, until: number): Delivery[] {
    return [...this.deliveries.rows.values()].filter((d) => d.webhookId === webhookId && d.createdAt.getTime() >= from && d.createdAt.getTime() < until);
  }

  async deleteForWebhook(webhookId: string) {
    for (const [key, row] of this.rows) if (row.webhookId === webhookId) this.rows.delete(key);
  }

  async purgeBefore(beforeHour: number, limit: number) {
    const doomed = [...this.rows.entries()].filter(([, r]) => r.hourStart < beforeHour).slice(0, limit);
    for (const [key] of doomed) this.rows.delete(key);
    return doomed.length;
  }
}
