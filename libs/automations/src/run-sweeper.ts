import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Clock, JobLease, newLeaseHolder, UnitOfWork, WorkQueue } from '../../kernel/src';
import { RunRepository } from './automations.repository';
import { runStepItem } from './run-step-work';

/** What the run sweeper needs from the configuration (the delivery sweeper's settings). */
export class RunSweeperSettings {
  constructor(
    /** How often one process looks (the lease makes it one at a time). */
    readonly intervalMs: number,
    /** A running run whose next step is this long past due is taken to have lost its queue item. */
    readonly staleAfterMs: number,
  ) {}
}

const LEASE = 'run-sweeper';
const BATCH = 500;
const MAX_BATCHES_PER_RUN = 20;

/**
 * Self-healing for automation runs, as DeliverySweeper is for deliveries: a running run whose next
 * step has been due for `staleAfterMs` (its `nextAt`) has lost its queue item (a JetStream stream
 * lost or deleted, an item deleted): it is rescheduled (seq bumped, so any item of it still alive
 * becomes outdated) with a fresh item. One process at a time, under a JobLease; every dispatcher
 * schedules it.
 */
@Injectable()
export class RunSweeper implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('RunSweeper');
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;

  constructor(
    private readonly runs: RunRepository,
    private readonly queue: WorkQueue,
    private readonly uow: UnitOfWork,
    private readonly lease: JobLease,
    private readonly clock: Clock,
    private readonly settings: RunSweeperSettings,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweep(), this.settings.intervalMs);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One sweep (skipped when another process holds the lease); returns the runs re-queued. */
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
    if (!(await this.lease.acquire(LEASE, holder, this.clock.now(), Math.max(this.settings.intervalMs * 2, 30_000)))) return 0;
    let requeued = 0;
    try {
      for (let batch = 0; batch < MAX_BATCHES_PER_RUN; batch++) {
        const now = this.clock.now();
        const stale = new Date(now.getTime() - this.settings.staleAfterMs);
        const rescheduled = await this.uow.run(async () => {
          const rows = await this.runs.rescheduleStale(stale, now, BATCH);
          if (rows.length > 0) await this.queue.enqueue(rows.map((r) => runStepItem(r.id, r.seq, r.nextAt)));
          return rows.length;
        });
        requeued += rescheduled;
        if (rescheduled < BATCH) break;
      }
    } finally {
      await this.lease.release(LEASE, holder);
    }
    if (requeued > 0) this.logger.warn({ msg: 'running runs had lost their queue items: re-queued', requeued });
    return requeued;
  }
}
