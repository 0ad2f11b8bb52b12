import { Gauge } from 'prom-client';
import type { Clock } from '../../kernel/src';
import { QUEUE_TABLES } from '../typeorm/src/queue-tables';
import type { TypeormDatabase } from '../typeorm/src/typeorm-database';
import type { Metrics } from './metrics';

/** A scrape waits this long at most for the database; past it, the gauges keep their last values. */
const SCRAPE_QUERY_TIMEOUT_MS = 2000;


/**
 * Gauges computed at scrape time from the database, one small query each, all answered from
 * indexes: queue depth and age of the oldest due item per table and topic, the outbox backlog,
 * waiting deliveries by status, disabled webhooks. A failing or slow database leaves the last values.
 */
export interface QueueGaugeOptions {
  /** The table the queue in use fills: its topics are exported at 0 while empty, so the series never vanish. */
  queueTable: (typeof QUEUE_TABLES)[number];
  topics: readonly string[];
}

export function registerStorageGauges(metrics: Metrics, db: TypeormDatabase, clock: Clock, queue: QueueGaugeOptions): void {
  const registers = [metrics.registry];
  let pending: Promise<Snapshot | null> | null = null;
  let lastAt = 0;
  // Every gauge's collect() asks for the same snapshot: one round of queries per scrape.
  const snapshot = (): Promise<Snapshot | null> => {
    const now = clock.nowMs();
    if (!pending || now - lastAt > 500) {
      lastAt = now;
      pending = withTimeout(readSnapshot(db, now), SCRAPE_QUERY_TIMEOUT_MS).catch(() => null);
    }
    return pending;
  };

  new Gauge({
    name: 'work_queue_items',
    help: 'Work items in the queue tables (waiting, delayed or leased), by table (work_items, outbox) and topic',
    labelNames: ['table', 'topic'] as const,
    registers,
    async collect() {
      const s = await snapshot();
      if (!s) return;
      this.reset();
      for (const topic of queue.topics) this.set({ table: queue.queueTable, topic }, 0);
      for (const row of s.queues) this.set({ table: row.table, topic: row.topic }, row.count);
    },
  });
  new Gauge({
    name: 'work_queue_oldest_due_age_seconds',
    help: 'Age of the oldest item that is due and not held by a worker (0 when none), by table and topic',
    labelNames: ['table', 'topic'] as const,
    registers,
    async collect() {
      const s = await snapshot();
      if (!s) return;
      this.reset();
      for (const topic of queue.topics) this.set({ table: queue.queueTable, topic }, 0);
      for (const row of s.queues) this.set({ table: row.table, topic: row.topic }, row.oldestDueAgeSeconds);
    },
  });
  new Gauge({
    name: 'outbox_backlog_items',
    help: 'Items in the outbox not yet handed to NATS JetStream (delayed retries included)',
    registers,
    async collect() {
      const s = await snapshot();
      if (s) this.set(s.queues.filter((q) => q.table === 'outbox').reduce((sum, q) => sum + q.count, 0));
    },
  });
  new Gauge({
    name: 'webhook_deliveries_waiting',
    help: 'Event deliveries not yet final, by status (pending, retrying)',
    labelNames: ['status'] as const,
    registers,
    async collect() {
      const s = await snapshot();
      if (!s) return;
      this.set({ status: 'pending' }, s.deliveries.pending);
      this.set({ status: 'retrying' }, s.deliveries.retrying);
    },
  });
  new Gauge({
    name: 'webhook_deliveries_oldest_due_age_seconds',
    help: 'How long the most overdue waiting delivery has been due (0 when none is overdue)',
    registers,
    async collect() {
      const s = await snapshot();
      if (s) this.set(s.deliveries.oldestDueAgeSeconds);
    },
  });
  new Gauge({
    name: 'webhooks_disabled',
    help: 'Webhooks currently disabled (after consecutive failures or by their owner)',
    registers,
    async collect() {
      const s = await snapshot();
      if (s) this.set(s.disabledWebhooks);
    },
  });
}

interface Snapshot {
  queues: Array<{ table: string; topic: string; count: number; oldestDueAgeSeconds: number }>;
  deliveries: { pending: number; retrying: number; oldestDueAgeSeconds: number };
  disabledWebhooks: number;
}

async function readSnapshot(db: TypeormDatabase, nowMs: number): Promise<Snapshot> {
  const queues: Snapshot['queues'] = [];
  for (const table of QUEUE_TABLES) {
    const rows = await db.query<{ topic: string; n: unknown; oldest: unknown }>(
      `SELECT topic, COUNT(*) AS n, MIN(available_at) AS oldest FROM ${table} GROUP BY topic`,
    );
    for (const row of rows) {
      const oldest = row.oldest === null ? null : Number(row.oldest);
      queues.push({ table, topic: row.topic, count: Number(row.n), oldestDueAgeSeconds: oldest !== null && oldest <= nowMs ? (nowMs - oldest) / 1000 : 0 });
    }
  }
  const byStatus = await db.query<{ status: string; n: unknown; due: unknown }>(
    "SELECT status, COUNT(*) AS n, MIN(COALESCE(next_attempt_at, created_at)) AS due FROM deliveries WHERE status IN ('pending', 'retrying') GROUP BY status",
  );
  const deliveries = { pending: 0, retrying: 0, oldestDueAgeSeconds: 0 };
  for (const row of byStatus) {
    if (row.status === 'pending' || row.status === 'retrying') deliveries[row.status] = Number(row.n);
    const due = row.due === null ? null : Number(row.due);
    if (due !== null && due <= nowMs) deliveries.oldestDueAgeSeconds = Math.max(deliveries.oldestDueAgeSeconds, (nowMs - due) / 1000);
  }
  const [disabled] = await db.query<{ n: unknown }>("SELECT COUNT(*) AS n FROM webhooks WHERE state = 'disabled'");
  return { queues, deliveries, disabledWebhooks: Number(disabled?.n ?? 0) };
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([work, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), ms)))]).finally(() => clearTimeout(timer));
}
