import { Injectable } from '@nestjs/common';
import { Clock, UnitOfWork, WorkQueue } from '../../kernel/src';
import { AUTOMATION_STEP_TOPIC } from './automations.settings';
import { RunRepository } from './automations.repository';
import { newRun } from './run';
import { Workflow } from './workflow';

/** Starts runs: the run row and its first queue item commit together, then the queue takes over. */
@Injectable()
export class RunsService {
  constructor(
    private readonly runs: RunRepository,
    private readonly queue: WorkQueue,
    private readonly clock: Clock,
    private readonly uow: UnitOfWork,
  ) {}

  /** Records a run of `workflow` for a trigger body (JSON text, kept as received); returns its id once durable. */
  async start(workflow: Workflow, triggerBody: string): Promise<string> {
    const run = newRun(workflow, triggerBody, this.clock.now());
    await this.uow.run(async () => {
      await this.runs.insert(run);
      await this.queue.enqueue([{ topic: AUTOMATION_STEP_TOPIC, payload: { runId: run.id, seq: run.seq }, key: `${run.id}:${run.seq}` }]);
    });
    return run.id;
  }
}
