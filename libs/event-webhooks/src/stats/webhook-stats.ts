import { DELIVERY_STATUSES, DeliveryStatus, SETTLED_STATUSES } from '../deliveries/delivery';
import { latencyBucket, percentileMs } from './latency-histogram';
import { AttemptStatsRow } from './webhook-stats.repository';

export const HOUR_MS = 3_600_000;
export const DEFAULT_STATS_WINDOW_MS = 24 * HOUR_MS;
export const MAX_STATS_WINDOW_MS = 31 * 24 * HOUR_MS;

export interface WebhookStats {
  since: Date;
  until: Date;
  deliveries: Record<DeliveryStatus, number>;
  attempts: { total: number; succeeded: number; failed: number };
  /** Succeeded attempts / attempts, null when there are none. */
  successRate: number | null;
  latencyMs: { p50: number | null; p95: number | null };
  /** Every hour from the hour of `since` to the hour of `until`, oldest first. */
  buckets: Array<{ start: Date; succeeded: number; failed: number }>;
}

export function hourOf(ms: number): number {
  return Math.floor(ms / HOUR_MS) * HOUR_MS;
}

/** One finished attempt, as the counters take it (or `count` alike ones). */
export interface CountedAttempt {
  webhookId: string;
  deliveryCreatedAt: Date;
  durationMs: number;
  success: boolean;
  count?: number;
}

/** Attempts added up per counter row (webhook, hour of the delivery's creation, latency bucket), in key order. */
export function statsRowsOf(attempts: CountedAttempt[]): AttemptStatsRow[] {
  const rows = new Map<string, AttemptStatsRow>();
  for (const a of attempts) {
    const hourStart = hourOf(a.deliveryCreatedAt.getTime());
    const bucket = latencyBucket(a.durationMs);
    const key = `${a.webhookId}\u0000${String(hourStart).padStart(15, '0')}\u0000${String(bucket).padStart(3, '0')}`;
    const row = rows.get(key) ?? { webhookId: a.webhookId, hourStart, latencyBucket: bucket, succeeded: 0, failed: 0 };
    if (a.success) row.succeeded += a.count ?? 1;
    else row.failed += a.count ?? 1;
    rows.set(key, row);
  }
  // one order for every writer: concurrent batches lock the same rows in the same order
  return [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
}

/** A change of one delivery's status: `from` null when it is created, `to` null when it is deleted. */
export interface DeliveryStatusChange {
  webhookId: string;
  createdAtMs: number;
  from: DeliveryStatus | null;
  to: DeliveryStatus | null;
}

/** What a counter of settled deliveries (webhook, hour of creation, status) gains or loses. */
export interface SettledCountDelta {
  webhookId: string;
  hourStart: number;
  status: DeliveryStatus;
  n: number;
}

const isSettled = (status: DeliveryStatus | null): status is DeliveryStatus => status !== null && SETTLED_STATUSES.includes(status);

/**
 * The counters' changes for a set of status changes, added up per counter, none of zero, in key
 * order (one lock order for every writer). Waiting statuses are not counted: the stats count them
 * from the deliveries themselves, where they are few.
 */
export function settledCountDeltas(changes: Iterable<DeliveryStatusChange>): SettledCountDelta[] {
  const deltas = new Map<string, SettledCountDelta>();
  const add = (change: DeliveryStatusChange, status: DeliveryStatus, n: number) => {
    const hourStart = hourOf(change.createdAtMs);
    const key = `${change.webhookId}\u0000${String(hourStart).padStart(15, '0')}\u0000${status}`;
    const delta = deltas.get(key) ?? { webhookId: change.webhookId, hourStart, status, n: 0 };
    delta.n += n;
    deltas.set(key, delta);
  };
  for (const change of changes) {
    if (change.from === change.to) continue;
    if (isSettled(change.from)) add(change, change.from, -1);
    if (isSettled(change.to)) add(change, change.to, 1);
  }
  return [...deltas.entries()]
    .filter(([, delta]) => delta.n !== 0)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, delta]) => delta);
}

/** The stats of one webhook from its delivery counts and its attempt counters. */
export function summarize(since: Date, until: Date, deliveryCounts: Partial<Record<DeliveryStatus, number>>, rows: AttemptStatsRow[]): WebhookStats {
  const deliveries = Object.fromEntries(DELIVERY_STATUSES.map((s) => [s, deliveryCounts[s] ?? 0])) as Record<DeliveryStatus, number>;
  const byHour = new Map<number, { succeeded: number; failed: number }>();
  const latency = new Map<number, number>();
  let succeeded = 0;
  let failed = 0;
  for (const row of rows) {
    const hour = byHour.get(row.hourStart) ?? { succeeded: 0, failed: 0 };
    hour.succeeded += row.succeeded;
    hour.failed += row.failed;
    byHour.set(row.hourStart, hour);
    latency.set(row.latencyBucket, (latency.get(row.latencyBucket) ?? 0) + row.succeeded + row.failed);
    succeeded += row.succeeded;
    failed += row.failed;
  }
  const buckets: WebhookStats['buckets'] = [];
  for (let start = hourOf(since.getTime()); start <= until.getTime(); start += HOUR_MS) {
    buckets.push({ start: new Date(start), ...(byHour.get(start) ?? { succeeded: 0, failed: 0 }) });
  }
  const total = succeeded + failed;
  return {
    since,
    until,
    deliveries,
    attempts: { total, succeeded, failed },
    successRate: total === 0 ? null : succeeded / total,
    latencyMs: { p50: percentileMs(latency, 0.5), p95: percentileMs(latency, 0.95) },
    buckets,
  };
}
