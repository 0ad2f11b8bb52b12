import { Injectable } from '@nestjs/common';
import { Clock, GroupCommit, UnitOfWork, WorkQueue } from '../../kernel/src';
import { runStepItem } from './run-step-work';
import { RunRepository } from './automations.repository';
import { newRun, Run } from './run';
import { Workflow } from './workflow';

/** Trigger calls gathered into one transaction at most. */
const MAX_RUNS_PER_GROUP = 64;
/**
 * Groups committing at once. On MariaDB a group waits mostly on its commit's log flush, not on the
 * API's CPU: four groups in flight took more trigger calls a second than two in every alternated
 * run (test/bench/notes.md); on SQLite, whose transactions take turns, it made no difference.
 */
const GROUPS_IN_FLIGHT = 4;

/**
 * Starts runs: the run row and its first queue item (due now, or when a leading delay ends) commit
 * together, then the queue takes over.
 * Concurrent trigger calls share that transaction (group commit, as event intake does): each call
 * still returns only once its own run is durable.
 */
@Injectable()
export class RunsService {
  private readonly groups: GroupCommit<Run, string>;

  constructor(
    private readonly runs: RunRepository,
    private readonly queue: WorkQueue,
    private readonly clock: Clock,
    private readonly uow: UnitOfWork,
  ) {
    this.groups = new GroupCommit((runs) => this.startTogether(runs), { maxSize: MAX_RUNS_PER_GROUP, maxConcurrent: GROUPS_IN_FLIGHT });
  }

  /** Records a run of `workflow` for a trigger body (JSON text, kept as received); returns its id once durable. */
  async start(workflow: Workflow, triggerBody: string): Promise<string> {
    return this.groups.submit(newRun(workflow, triggerBody, this.clock.now()));
  }

  private async startTogether(runs: Run[]): Promise<string[]> {
    await this.uow.run(async () => {
      await this.runs.insertMany(runs);
      await this.queue.enqueue(runs.map((run) => runStepItem(run.id, run.seq, dueLater(run))));
    });
    return runs.map((run) => run.id);
  }
}

/** When the run's first item is due: the end of a leading delay, or now (null). */
function dueLater(run: Run): Date | null {
  const resumeAt = run.stepStates[run.stepIndex].resumeAt;
  return resumeAt === undefined ? null : new Date(resumeAt);
}
