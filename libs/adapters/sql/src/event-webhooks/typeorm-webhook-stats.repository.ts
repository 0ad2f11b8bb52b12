import { DeliveryStatus, WAITING_STATUSES } from '../../../../event-webhooks/src/deliveries/delivery';
import { AttemptStatsRow, WebhookStatsRepository } from '../../../../event-webhooks/src/stats/webhook-stats.repository';
import { idFloorAt } from '../../../../kernel/src';
import { TypeormDatabase } from '../typeorm-database';
import { AttemptCounters } from './attempt-counters';
import { SettledDeliveryCounts } from './settled-delivery-counts';

/** The counters of attempts and of settled deliveries, both per webhook and hour. */
const COUNTER_TABLES = ['webhook_attempt_stats', 'webhook_delivery_counts'] as const;

interface CounterRow {
  webhook_id: string;
  hour_start: number | string;
  latency_bucket: number | string;
  succeeded: number | string;
  failed: number | string;
}

/** Rows of `webhook_attempt_stats`; delivery counts from `webhook_delivery_counts` and, for waiting ones, the (webhook_id, status, id) index of `deliveries`. */
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
