import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Clock, JobLease, LeasedSweep, SweepSettings, UnitOfWork, WorkQueue } from '../../kernel/src';
import { RunRepository } from './automations.repository';
import { runStepItem } from './run-step-work';

/**
 * Self-healing for automation runs, as DeliverySweeper is for deliveries: a running run whose next
 * step has been due for `staleAfterMs` (its `nextAt`) has lost its queue item; it is rescheduled
 * (seq bumped) with a fresh one, by a LeasedSweep.
 */
@Injectable()
export class RunSweeper implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly sweeper: LeasedSweep;

  constructor(runs: RunRepository, queue: WorkQueue, uow: UnitOfWork, lease: JobLease, clock: Clock, settings: SweepSettings) {
    const requeueStale = (staleBefore: Date, now: Date, limit: number) =>
      uow.run(async () => {
        const rows = await runs.rescheduleStale(staleBefore, now, limit);
        if (rows.length > 0) await queue.enqueue(rows.map((r) => runStepItem(r.id, r.seq, r.nextAt)));
        return rows.length;
      });
    const logger = new Logger('RunSweeper');
    this.sweeper = new LeasedSweep({ lease: 'run-sweeper', requeueStale }, lease, clock, settings, logger, 'running runs had lost their queue items: re-queued');
  }

  onApplicationBootstrap(): void {
    this.sweeper.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.sweeper.stop();
  }

  /** One sweep (skipped when another process holds the lease); returns the runs re-queued. */
  sweep(): Promise<number> {
    return this.sweeper.sweep();
  }
}
