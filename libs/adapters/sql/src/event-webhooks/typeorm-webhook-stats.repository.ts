import { DELIVERY_STATUSES, DeliveryStatus, WAITING_STATUSES } from '../../../../event-webhooks/src/deliveries/delivery';
import { statsRowsOf } from '../../../../event-webhooks/src/stats/webhook-stats';
import { AttemptStatsRow, PartialHour, WebhookStatsRepository } from '../../../../event-webhooks/src/stats/webhook-stats.repository';
import { idFloorAt } from '../../../../kernel/src';
import { TypeormDatabase } from '../typeorm-database';
import { AttemptCounters } from './attempt-counters';
import { countedAttempt } from './delivery-rows';
import { countsByStatus, deliveriesInIdRange, SettledDeliveryCounts, StatusCount } from './settled-delivery-counts';

/** The counters of attempts and of settled deliveries, both per webhook and hour. */
const COUNTER_TABLES = ['webhook_attempt_stats', 'webhook_delivery_counts'] as const;

interface CounterRow {
  webhook_id: string;
  hour_start: number | string;
  latency_bucket: number | string;
  succeeded: number | string;
  failed: number | string;
}

/**
 * Attempts of a webhook's deliveries in a range of ids, grouped by duration and answer, from
 * ix_delivery_attempts_webhook_delivery alone (the planners took the primary key when the table
 * looked small, and then the whole rows).
 */
export function attemptsCreatedBetweenSql(dialect: TypeormDatabase['dialect']): string {
  const index = 'ix_delivery_attempts_webhook_delivery';
  return `SELECT duration_ms, http_status, COUNT(*) AS n FROM delivery_attempts ${dialect === 'mysql' ? `FORCE INDEX (${index})` : `INDEXED BY ${index}`} WHERE webhook_id = ? AND delivery_id >= ? AND delivery_id < ? GROUP BY duration_ms, http_status`;
}

/** Rows of `webhook_attempt_stats`; delivery counts from `webhook_delivery_counts` and, for waiting ones and a window's first hour, the (webhook_id, status, id) index of `deliveries`. */
export class TypeormWebhookStatsRepository extends WebhookStatsRepository {
  private readonly deliveryCounts: SettledDeliveryCounts;
  private readonly attempts: AttemptCounters;

  constructor(private readonly db: TypeormDatabase) {
    super();
    this.deliveryCounts = new SettledDeliveryCounts(db);
    this.attempts = new AttemptCounters(db);
  }

  async add(rows: AttemptStatsRow[]): Promise<void> {
    await this.attempts.add(rows);
  }

  async read(webhookId: string, fromHour: number): Promise<AttemptStatsRow[]> {
    const rows = await this.db.query<CounterRow>(
      'SELECT webhook_id, hour_start, latency_bucket, succeeded, failed FROM webhook_attempt_stats WHERE webhook_id = ? AND hour_start >= ?',
      [webhookId, fromHour],
    );
    return rows.map((r) => ({
      webhookId: r.webhook_id,
      hourStart: Number(r.hour_start),
      latencyBucket: Number(r.latency_bucket),
      succeeded: Number(r.succeeded),
      failed: Number(r.failed),
    }));
  }

  /** Ids sort by creation time: `id >= floor` is `created_at >= fromHour` for the waiting deliveries counted from their index. */
  async countDeliveries(webhookId: string, fromHour: number): Promise<Partial<Record<DeliveryStatus, number>>> {
    return this.deliveryCounts.count(webhookId, fromHour, idFloorAt('del', fromHour), WAITING_STATUSES);
  }

  /**
   * Two statements over index ranges of that part of the hour: its deliveries counted per status
   * (ix_deliveries_webhook_status), its attempts grouped by duration and answer (from their index).
   * Ids sort by creation time, so the id range is the creation range.
   */
  async countPartialHour(webhookId: string, from: number, untilHour: number): Promise<PartialHour> {
    const [floor, ceiling] = [idFloorAt('del', from), idFloorAt('del', untilHour)];
    const inIndex = deliveriesInIdRange(webhookId, DELIVERY_STATUSES, floor, ceiling);
    const [counts, attempts] = await Promise.all([
      this.db.query<StatusCount>(inIndex.selects.join(' UNION ALL '), inIndex.params),
      this.db.query<{ duration_ms: number | string; http_status: number | string | null; n: number | string }>(
        attemptsCreatedBetweenSql(this.db.dialect),
        [webhookId, floor, ceiling],
      ),
    ]);
    const createdAt = new Date(from);
    return {
      deliveries: countsByStatus(counts),
      attempts: statsRowsOf(attempts.map((a) => countedAttempt(a, webhookId, createdAt))),
    };
  }

  async deleteForWebhook(webhookId: string): Promise<void> {
    for (const table of COUNTER_TABLES) await this.db.exec(`DELETE FROM ${table} WHERE webhook_id = ?`, [webhookId]);
  }

  /** A full scan of the counter tables, bounded by retention, once a day. */
  async purgeBefore(beforeHour: number, limit: number): Promise<number> {
    let purged = 0;
    for (const table of COUNTER_TABLES) {
      if (purged >= limit) break;
      const sql =
        this.db.dialect === 'mysql'
          ? `DELETE FROM ${table} WHERE hour_start < ? LIMIT ?`
          : `DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE hour_start < ? LIMIT ?)`;
      purged += (await this.db.exec(sql, [beforeHour, limit - purged])).affected;
    }
    return purged;
  }
}
