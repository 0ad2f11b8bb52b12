import { AttemptStatsRow } from '../../../../event-webhooks/src/stats/webhook-stats.repository';
import { TypeormDatabase } from '../typeorm-database';
import { subtractFromCounters } from './subtract-from-counters';

/**
 * `webhook_attempt_stats`: attempts per webhook, hour of the delivery's creation and latency bucket.
 * Attempts are added as they are recorded and taken out when retention purges their deliveries.
 */
export class AttemptCounters {
  constructor(private readonly db: TypeormDatabase) {}

  /** One statement: new counters inserted, existing ones added to. */
  async add(rows: AttemptStatsRow[]): Promise<void> {
    if (rows.length === 0) return;
    const onConflict =
      this.db.dialect === 'mysql'
        ? 'ON DUPLICATE KEY UPDATE succeeded = succeeded + VALUES(succeeded), failed = failed + VALUES(failed)'
        : 'ON CONFLICT (webhook_id, hour_start, latency_bucket) DO UPDATE SET succeeded = succeeded + excluded.succeeded, failed = failed + excluded.failed';
    await this.db.write(
      `INSERT INTO webhook_attempt_stats (webhook_id, hour_start, latency_bucket, succeeded, failed) VALUES ${rows.map(() => '(?, ?, ?, ?, ?)').join(', ')} ${onConflict}`,
      rows.flatMap((r) => [r.webhookId, r.hourStart, r.latencyBucket, r.succeeded, r.failed]),
    );
  }

  /** Takes the rows' attempts out of their counters (a counter already purged stays gone). */
  async subtract(rows: AttemptStatsRow[]): Promise<void> {
    await subtractFromCounters(
      this.db,
      'webhook_attempt_stats',
      ['webhook_id', 'hour_start', 'latency_bucket'],
      ['succeeded', 'failed'],
      rows.map((r) => ({ key: [r.webhookId, r.hourStart, r.latencyBucket], amounts: [r.succeeded, r.failed] })),
    );
  }
}
