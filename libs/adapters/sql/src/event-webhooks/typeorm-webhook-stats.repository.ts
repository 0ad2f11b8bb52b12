import { DELIVERY_STATUSES, DeliveryStatus } from '../../../../event-webhooks/src/deliveries/delivery';
import { AttemptStatsRow, WebhookStatsRepository } from '../../../../event-webhooks/src/stats/webhook-stats.repository';
import { idFloorAt } from '../../../../kernel/src';
import { TypeormDatabase } from '../typeorm-database';

interface CounterRow {
  webhook_id: string;
  hour_start: number | string;
  latency_bucket: number | string;
  succeeded: number | string;
  failed: number | string;
}

/** Rows of `webhook_attempt_stats`; delivery counts from the (webhook_id, status, id) index of `deliveries`. */
export class TypeormWebhookStatsRepository extends WebhookStatsRepository {
  constructor(private readonly db: TypeormDatabase) {
    super();
  }

  /** One statement: new counters inserted, existing ones added to. */
  async add(rows: AttemptStatsRow[]): Promise<void> {
    if (rows.length === 0) return;
    const onConflict =
      this.db.dialect === 'mysql'
        ? 'ON DUPLICATE KEY UPDATE succeeded = succeeded + VALUES(succeeded), failed = failed + VALUES(failed)'
        : 'ON CONFLICT (webhook_id, hour_start, latency_bucket) DO UPDATE SET succeeded = succeeded + excluded.succeeded, failed = failed + excluded.failed';
    await this.db.exec(
      `INSERT INTO webhook_attempt_stats (webhook_id, hour_start, latency_bucket, succeeded, failed) VALUES ${rows.map(() => '(?, ?, ?, ?, ?)').join(', ')} ${onConflict}`,
      rows.flatMap((r) => [r.webhookId, r.hourStart, r.latencyBucket, r.succeeded, r.failed]),
    );
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

  /**
   * Ids sort by creation time: `id >= floor` is `created_at >= since`. One range of the
   * (webhook_id, status, id) index per status, in one statement (MariaDB plans a single IN-list
   * range over all statuses about half as fast).
   */
  async countDeliveries(webhookId: string, since: Date): Promise<Partial<Record<DeliveryStatus, number>>> {
    const floor = idFloorAt('del', since.getTime());
    const rows = await this.db.query<{ status: DeliveryStatus; n: number | string }>(
      DELIVERY_STATUSES.map(() => 'SELECT ? AS status, COUNT(*) AS n FROM deliveries WHERE webhook_id = ? AND status = ? AND id >= ?').join(' UNION ALL '),
      DELIVERY_STATUSES.flatMap((status) => [status, webhookId, status, floor]),
    );
    return Object.fromEntries(rows.filter((r) => Number(r.n) > 0).map((r) => [r.status, Number(r.n)]));
  }

  async deleteForWebhook(webhookId: string): Promise<void> {
    await this.db.exec('DELETE FROM webhook_attempt_stats WHERE webhook_id = ?', [webhookId]);
  }

  /** A full scan of a table bounded by retention, once a day. */
  async purgeBefore(beforeHour: number, limit: number): Promise<number> {
    const sql =
      this.db.dialect === 'mysql'
        ? 'DELETE FROM webhook_attempt_stats WHERE hour_start < ? LIMIT ?'
        : 'DELETE FROM webhook_attempt_stats WHERE rowid IN (SELECT rowid FROM webhook_attempt_stats WHERE hour_start < ? LIMIT ?)';
    return (await this.db.exec(sql, [beforeHour, limit])).affected;
  }
}
