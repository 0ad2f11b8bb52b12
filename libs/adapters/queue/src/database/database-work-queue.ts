import { Logger } from '@nestjs/common';
import { Clock, ConsumeOptions, newId, QueueBacklog, ReceivedWork, WorkHandlerFn, WorkItem, WorkOutcome, WorkQueue, WorkSubscription } from '../../../../kernel/src';
import { TypeormDatabase } from '../../../sql/src/typeorm-database';
import { LeasedRowWorker } from '../leased-row-worker';
import { ClaimedRow, LeasedRows } from '../leased-rows';
import { assertTopic, assertWorkItems, DEFAULT_FAILURE_BACKOFF, describeError, FailureBackoff, failureRetryAt, QueueLogger } from '../work-items';

export interface DatabaseWorkQueueOptions {
  /** How long a claimed item stays invisible to others without renewal (default 60 s). */
  leaseMs?: number;
  /**
   * How often consumers look for work enqueued by other processes or come due (default 80 ms:
   * with the claim's own round trips, worst-case idle pickup stays within 100 ms).
   */
  pollIntervalMs?: number;
  failureBackoff?: FailureBackoff;
  logger?: QueueLogger;
}

/**
 * The durable queue kept in the SQL database (`work_items`), the zero-infrastructure default.
 * enqueue() writes in the caller's transaction; consumers in this process are woken right after
 * commit, other processes find the rows on their next poll.
 */
export class DatabaseWorkQueue extends WorkQueue {
  private readonly rows: LeasedRows;
  private readonly workers = new Map<LeasedRowWorker, string>();
  private readonly leaseMs: number;
  private readonly pollIntervalMs: number;
  private readonly failureBackoff: FailureBackoff;
  private readonly logger: QueueLogger;

  constructor(
    private readonly db: TypeormDatabase,
    private readonly clock: Clock,
    options: DatabaseWorkQueueOptions = {},
  ) {
    super();
    this.rows = new LeasedRows(db, { name: 'work_items', extraColumns: [] });
    this.leaseMs = options.leaseMs ?? 60_000;
    this.pollIntervalMs = options.pollIntervalMs ?? 80;
    this.failureBackoff = options.failureBackoff ?? DEFAULT_FAILURE_BACKOFF;
    this.logger = options.logger ?? new Logger(DatabaseWorkQueue.name);
  }

  async enqueue(items: WorkItem[]): Promise<void> {
    if (items.length === 0) return;
    assertWorkItems(items);
    const now = this.clock.nowMs();
    await this.rows.insert(
      items.map((item) => ({
        id: newId('wrk', now),
        topic: item.topic,
        payload: JSON.stringify(item.payload),
        dedupKey: item.key ?? null,
        availableAt: item.runAt?.getTime() ?? now,
      })),
      now,
    );
    const dueTopics = new Set(items.filter((item) => (item.runAt?.getTime() ?? now) <= now).map((item) => item.topic));
    if (dueTopics.size > 0) this.db.afterCommit(() => this.wake(dueTopics));
  }

  async consume(topic: string, handler: WorkHandlerFn, options: ConsumeOptions): Promise<WorkSubscription> {
    assertTopic(topic);
    const worker = new LeasedRowWorker(
      this.rows,
      this.clock,
      (row) => this.handleRow(row, handler),
      {
        topic,
        concurrency: Math.max(1, Math.floor(options.concurrency)),
        leaseMs: this.leaseMs,
        pollIntervalMs: this.pollIntervalMs,
        retryAfterFailure: (row, nowMs) => failureRetryAt(nowMs, row.deliveryCount, this.failureBackoff),
        spareCapacity: options.spareCapacity,
        maxHandlerFailures: options.maxHandlerFailures,
        giveUp: options.giveUp && ((row, reason) => options.giveUp!(this.toWork(row), reason)),
        postpone: options.postpone && ((row, at) => options.postpone!(this.toWork(row), at)),
        label: `work queue ${topic}`,
      },
      this.logger,
    );
    this.workers.set(worker, topic);
    worker.start();
    return {
      stop: async (graceMs?: number) => {
        await worker.stop(graceMs);
        this.workers.delete(worker);
      },
    };
  }

  async ping(): Promise<void> {
    await this.db.exec('SELECT 1');
  }

  backlog(): Promise<QueueBacklog> {
    return this.rows.backlog();
  }

  /** A row being worked on is available again only when its lease ends: the earliest available time is the oldest waiting item. */
  oldestWaiting(topic: string): Promise<Date | null> {
    return this.rows.oldestAvailable(topic);
  }

  /** Stops whatever is still consuming, releasing its items at once. The database stays open. */
  async close(): Promise<void> {
    const workers = [...this.workers.keys()];
    this.workers.clear();
    await Promise.all(workers.map((worker) => worker.stop(0)));
  }

  private wake(topics: Set<string>): void {
    for (const [worker, topic] of this.workers) if (topics.has(topic)) worker.wake();
  }

  private async handleRow(row: ClaimedRow, handler: WorkHandlerFn): Promise<WorkOutcome> {
    let work: ReceivedWork;
    try {
      work = this.toWork(row);
    } catch (error) {
      return { kind: 'drop', reason: `unreadable payload: ${describeError(error)}` };
    }
    return handler(work);
  }

  private toWork(row: ClaimedRow): ReceivedWork {
    const payload = JSON.parse(row.payload) as Record<string, unknown>;
    return { id: row.id, topic: row.topic, payload, deliveryCount: row.deliveryCount, failures: row.failures };
  }
}
