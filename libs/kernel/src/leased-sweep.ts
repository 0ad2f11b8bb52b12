import { Clock } from './clock';
import { JobLease } from './job-lease';
import { LeasedJob } from './leased-job';
import { UnitOfWork } from './unit-of-work';
import { WorkItem, WorkQueue } from './work-queue';
import { WorkRef } from './work-seq';

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
 * Stale means out of the queue for `staleAfterMs` (staleBefore): work merely waiting its turn
 * behind a backlog is not taken for lost.
 */
export abstract class LeasedSweep<Rescheduled extends WorkRef> {
  private readonly job: LeasedJob;
  /** Each sweep's look at the queue: when, and the due time before which all work had left it. */
  private readonly looks: Array<{ at: number; passed: number }> = [];

  constructor(
    /** The lease's name: one process sweeps at a time. */
    leaseName: string,
    lease: JobLease,
    private readonly clock: Clock,
    private readonly settings: SweepSettings,
    private readonly logger: SweepLogger,
    /** The log line when something was re-queued. */
    private readonly requeuedMessage: string,
    private readonly uow: UnitOfWork,
    private readonly queue: WorkQueue,
    /** The topic of the work's queue items. */
    private readonly topic: string,
  ) {
    const leaseTtlMs = Math.max(settings.intervalMs * 2, 30_000);
    this.job = new LeasedJob(lease, clock, { lease: leaseName, intervalMs: settings.intervalMs, leaseTtlMs, label: 'sweep', logger }, () => this.sweepOnce());
  }

  /**
   * The repository's conditional write: up to `limit` records due before `staleBefore`, waiting and
   * unclaimed, rescheduled for `now` with seq bumped (so any item of theirs still alive becomes
   * outdated); returns them at their new seq.
   */
  protected abstract rescheduleStale(staleBefore: Date, now: Date, limit: number): Promise<Rescheduled[]>;

  /** The fresh queue item of a rescheduled record. */
  protected abstract freshItem(record: Rescheduled): WorkItem;

  onApplicationBootstrap(): void {
    this.job.start({ runNow: false });
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.job.stop();
  }

  /** One sweep (skipped when another process holds the lease); returns how many were re-queued. */
  sweep(): Promise<number> {
    return this.job.run();
  }

  /** One transaction: the records rescheduled and a fresh item enqueued for each; returns how many. */
  private requeueStale(staleBefore: Date, now: Date, limit: number): Promise<number> {
    return this.uow.run(async () => {
      const rescheduled = await this.rescheduleStale(staleBefore, now, limit);
      if (rescheduled.length > 0) await this.queue.enqueue(rescheduled.map((record) => this.freshItem(record)));
      return rescheduled.length;
    });
  }

  /**
   * When the queue's oldest waiting item became due, or null (none waits, or the queue cannot tell:
   * then staleness is measured from now, as when the queue lost everything).
   */
  private async queueWaitingSince(): Promise<number | null> {
    try {
      return (await this.queue.oldestWaiting(this.topic))?.getTime() ?? null;
    } catch {
      return null;
    }
  }

  /**
   * Work due before the returned time left the queue `staleAfterMs` ago or more: unclaimed still,
   * it lost its item. Work leaves the queue in due order, so work due before the queue's oldest
   * waiting item when it was looked at `staleAfterMs` ago (or before that look itself, when nothing
   * waited) had left it by then. Work just handed out waits unclaimed in a dispatcher's lanes for a
   * moment however long it waited in the queue: measured from its due time alone, it would be taken
   * for lost as soon as a long backlog drained. Until this process has looked that long ago, the
   * queue's oldest waiting item now stands in.
   */
  private async staleBefore(nowMs: number): Promise<number> {
    const waitingSince = await this.queueWaitingSince();
    this.looks.push({ at: nowMs, passed: Math.min(nowMs, waitingSince ?? Infinity) });
    const horizon = nowMs - this.settings.staleAfterMs;
    let old = -1;
    while (old + 1 < this.looks.length && this.looks[old + 1].at <= horizon) old++;
    if (old < 0) return this.looks[this.looks.length - 1].passed - this.settings.staleAfterMs;
    this.looks.splice(0, old);
    return this.looks[0].passed;
  }

  private async sweepOnce(): Promise<number> {
    let requeued = 0;
    const staleBefore = await this.staleBefore(this.clock.nowMs());
    for (let batch = 0; batch < MAX_BATCHES_PER_RUN; batch++) {
      const now = this.clock.now();
      const rescheduled = await this.requeueStale(new Date(staleBefore), now, BATCH);
      requeued += rescheduled;
      if (rescheduled < BATCH) break;
    }
    if (requeued > 0) this.logger.warn({ msg: this.requeuedMessage, requeued });
    return requeued;
  }
}
