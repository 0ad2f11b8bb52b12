import { Gauge } from 'prom-client';
import type { DeliveryRepository } from '../../event-webhooks/src/deliveries/delivery.repository';
import type { WebhookRepository } from '../../event-webhooks/src/webhooks/webhook.repository';
import type { Clock, WorkQueue } from '../../kernel/src';
import type { Metrics } from './metrics';

/** A scrape waits this long at most for the database; past it, the gauges read NaN (no value), never a stale one. */
const SCRAPE_QUERY_TIMEOUT_MS = 2000;

/** Where the gauges read from: the ports, never the tables behind them. */
export interface GaugeSources {
  queue: WorkQueue;
  deliveries: DeliveryRepository;
  webhooks: WebhookRepository;
  /** Topics exported at 0 while empty, so their series never vanish. */
  topics: readonly string[];
}

/**
 * Gauges computed at scrape time through the ports, one small query each: queue depth and age of
 * the oldest due item per store and topic, the outbox backlog, waiting deliveries by status,
 * disabled webhooks. When the database does not answer (down, or slower than
 * SCRAPE_QUERY_TIMEOUT_MS) they read NaN and `storage_gauges_up` reads 0: a value kept from before
 * the outage would stop an "oldest due age" alert exactly when it matters.
 */
export function registerStorageGauges(metrics: Metrics, clock: Clock, sources: GaugeSources): void {
  const registers = [metrics.registry];
  let pending: Promise<Snapshot | null> | null = null;
  let lastAt = 0;
  // Every gauge's collect() asks for the same snapshot: one round of queries per scrape.
  const snapshot = (): Promise<Snapshot | null> => {
    const now = clock.nowMs();
    if (!pending || now - lastAt > 500) {
      lastAt = now;
      pending = withTimeout(readSnapshot(sources, now), SCRAPE_QUERY_TIMEOUT_MS).catch(() => null);
    }
    return pending;
  };

  // One series per (store, topic), the known topics at 0 while empty.
  const queueGauge = (name: string, help: string, value: (row: Snapshot['queues'][number]) => number) => {
    let series: Array<{ table: string; topic: string }> = [];
    return new Gauge({
      name,
      help,
      labelNames: ['table', 'topic'] as const,
      registers,
      async collect() {
        const s = await snapshot();
        if (!s) {
          for (const labels of series) this.set(labels, NaN);
          return;
        }
        this.reset();
        for (const topic of sources.topics) this.set({ table: s.store, topic }, 0);
        for (const row of s.queues) this.set({ table: s.store, topic: row.topic }, value(row));
        series = [...new Set([...sources.topics, ...s.queues.map((row) => row.topic)])].map((topic) => ({ table: s.store, topic }));
      },
    });
  };
  queueGauge('work_queue_items', 'Work items in the queue tables (waiting, delayed or leased), by table (work_items, outbox) and topic', (row) => row.count);
  queueGauge('work_queue_oldest_due_age_seconds', 'Age of the oldest item that is due and not held by a worker (0 when none), by table and topic', (row) => row.oldestDueAgeSeconds);
  new Gauge({
    name: 'outbox_backlog_items',
    help: 'Items in the outbox not yet handed to NATS JetStream (delayed retries included)',
    registers,
    async collect() {
      const s = await snapshot();
      this.set(!s ? NaN : s.store === 'outbox' ? s.queues.reduce((sum, q) => sum + q.count, 0) : 0);
    },
  });
  new Gauge({
    name: 'webhook_deliveries_waiting',
    help: 'Event deliveries not yet final, by status (pending, retrying)',
    labelNames: ['status'] as const,
    registers,
    async collect() {
      const s = await snapshot();
      this.set({ status: 'pending' }, s ? s.deliveries.pending : NaN);
      this.set({ status: 'retrying' }, s ? s.deliveries.retrying : NaN);
    },
  });
  new Gauge({
    name: 'webhook_deliveries_oldest_due_age_seconds',
    help: 'How long the most overdue waiting delivery has been due (0 when none is overdue)',
    registers,
    async collect() {
      const s = await snapshot();
      this.set(s ? s.deliveries.oldestDueAgeSeconds : NaN);
    },
  });
  new Gauge({
    name: 'webhooks_disabled',
    help: 'Webhooks currently disabled (after consecutive failures or by their owner)',
    registers,
    async collect() {
      const s = await snapshot();
      this.set(s ? s.disabledWebhooks : NaN);
    },
  });
  new Gauge({
    name: 'storage_gauges_up',
    help: 'Whether the database answered the gauges of this scrape (1) or not (0: they read NaN)',
    registers,
    async collect() {
      this.set((await snapshot()) ? 1 : 0);
    },
  });
}

interface Snapshot {
  store: string;
  queues: Array<{ topic: string; count: number; oldestDueAgeSeconds: number }>;
  deliveries: { pending: number; retrying: number; oldestDueAgeSeconds: number };
  disabledWebhooks: number;
}

const ageSeconds = (at: Date | null, nowMs: number) => (at !== null && at.getTime() <= nowMs ? (nowMs - at.getTime()) / 1000 : 0);

async function readSnapshot({ queue, deliveries, webhooks }: GaugeSources, nowMs: number): Promise<Snapshot> {
  const [backlog, waiting, disabledWebhooks] = await Promise.all([queue.backlog(), deliveries.waitingSummary(), webhooks.countDisabled()]);
  return {
    store: backlog.store,
    queues: backlog.topics.map((t) => ({ topic: t.topic, count: t.items, oldestDueAgeSeconds: ageSeconds(t.oldestDueAt, nowMs) })),
    deliveries: { pending: waiting.pending, retrying: waiting.retrying, oldestDueAgeSeconds: ageSeconds(waiting.oldestDueAt, nowMs) },
    disabledWebhooks,
  };
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([work, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), ms)))]).finally(() => clearTimeout(timer));
}
