import { Injectable, Logger } from '@nestjs/common';
import { Clock, JobLease, LeasedSweep, SweepSettings, UnitOfWork, WorkItem, WorkQueue } from '../../kernel/src';
import { RunRepository, ScheduledRun } from './automations.repository';
import { AUTOMATION_STEP_TOPIC, runStepItem } from './run-step-work';

/** Running runs whose next step has been due for `staleAfterMs` (their `nextAt`) have lost their queue item: rescheduled with a fresh one. */
@Injectable()
export class RunSweeper extends LeasedSweep<ScheduledRun> {
  constructor(private readonly runs: RunRepository, queue: WorkQueue, uow: UnitOfWork, lease: JobLease, clock: Clock, settings: SweepSettings) {
    super('run-sweeper', lease, clock, settings, new Logger('RunSweeper'), 'running runs had lost their queue items: re-queued', uow, queue, AUTOMATION_STEP_TOPIC);
  }

  protected rescheduleStale(staleBefore: Date, now: Date, limit: number): Promise<ScheduledRun[]> {
    return this.runs.rescheduleStale(staleBefore, now, limit);
  }

  protected freshItem(run: ScheduledRun): WorkItem {
    return runStepItem(run.id, run.seq, run.nextAt);
  }
}
