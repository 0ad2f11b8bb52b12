import { Clock } from './clock';
import { JobLease, newLeaseHolder } from './job-lease';

/** DELIVERY_SWEEP_INTERVAL and DELIVERY_SWEEP_AFTER, shared by every sweeper. */
export class SweepSettings {
  constructor(
    /** How often one process looks (the lease makes it one at a time). */
    readonly intervalMs: number,
    /** Work this long past due, unclaimed, is taken to have lost its queue item. */
    readonly staleAfterMs: number,
  ) {}
}

export interface SweepLogger {
  warn(message: unknown): void;
}

const BATCH = 500;
const MAX_BATCHES_PER_RUN = 20;

/**
 * Self-healing: the database is the truth, the queue only carries work. Work that is due,
 * unclaimed and stale has lost its queue item (a JetStream stream lost or deleted, a hand-over
 * that never happened); a sweep re-queues it, at most MAX_BATCHES_PER_RUN batches at a time, under
 * a JobLease. Every process schedules it (Nest calls the two lifecycle hooks); one at a time sweeps.
 */
export abstract class LeasedSweep {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;

  constructor(
    /** The lease's name: one process sweeps at a time. */
    private readonly leaseName: string,
    private readonly lease: JobLease,
    private readonly clock: Clock,
    private readonly settings: SweepSettings,
    private readonly logger: SweepLogger,
    /** The log line when something was re-queued. */
    private readonly requeuedMessage: string,
  ) {}

  /**
   * One transaction: reschedules up to `limit` items due before `staleBefore` (seq bumped, so any
   * item of theirs still alive becomes outdated) and enqueues a fresh item for each; returns how many.
   */
  protected abstract requeueStale(staleBefore: Date, now: Date, limit: number): Promise<number>;

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweep(), this.settings.intervalMs);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One sweep (skipped when another process holds the lease); returns how many were re-queued. */
  sweep(): Promise<number> {
    this.running ??= this.sweepOnce()
      .catch((error: unknown) => {
        this.logger.warn(`sweep failed: ${error instanceof Error ? error.message : String(error)}`);
        return 0;
      })
      .finally(() => (this.running = null));
    return this.running;
  }

  private async sweepOnce(): Promise<number> {
    const holder = newLeaseHolder();
    if (!(await this.lease.acquire(this.leaseName, holder, this.clock.now(), Math.max(this.settings.intervalMs * 2, 30_000)))) return 0;
    let requeued = 0;
    try {
      for (let batch = 0; batch < MAX_BATCHES_PER_RUN; batch++) {
        const now = this.clock.now();
        const rescheduled = await this.requeueStale(new Date(now.getTime() - this.settings.staleAfterMs), now, BATCH);
        requeued += rescheduled;
        if (rescheduled < BATCH) break;
      }
    } finally {
      await this.lease.release(this.leaseName, holder);
    }
    if (requeued > 0) this.logger.warn({ msg: this.requeuedMessage, requeued });
    return requeued;
  }
}
