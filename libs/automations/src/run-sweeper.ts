import { Injectable, Logger } from '@nestjs/common';
import { Clock, JobLease, LeasedSweep, SweepSettings, UnitOfWork, WorkQueue } from '../../kernel/src';
import { RunRepository } from './automations.repository';
import { runStepItem } from './run-step-work';

/** Running runs whose next step has been due for `staleAfterMs` (their `nextAt`) have lost their queue item: rescheduled with a fresh one. */
@Injectable()
export class RunSweeper extends LeasedSweep {
  constructor(
    private readonly runs: RunRepository,
    private readonly queue: WorkQueue,
    private readonly uow: UnitOfWork,
    lease: JobLease,
    clock: Clock,
    settings: SweepSettings,
  ) {
    super('run-sweeper', lease, clock, settings, new Logger('RunSweeper'), 'running runs had lost their queue items: re-queued');
  }

  protected requeueStale(staleBefore: Date, now: Date, limit: number): Promise<number> {
    return this.uow.run(async () => {
      const rows = await this.runs.rescheduleStale(staleBefore, now, limit);
      if (rows.length > 0) await this.queue.enqueue(rows.map((r) => runStepItem(r.id, r.seq, r.nextAt)));
      return rows.length;
    });
  }
}
