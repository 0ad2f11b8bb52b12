import { exceedsDepth, newId, nextSeq, TransportErrorKind } from '../../kernel/src';
import { DelayStep, Workflow, WorkflowStep } from './workflow';

/**
 * A run: one execution of a workflow's steps, started by one trigger call, advanced by the queue.
 *
 * Run status: running -> succeeded | failed.
 * Step status: pending (not reached) -> running (current: retries or a delay in progress)
 *              -> succeeded | failed; the steps after a failed one become skipped.
 *
 * `seq` names the one piece of queue work the run is waiting for (work-seq.ts of libs/kernel, as for
 * deliveries). Every change that schedules work moves it on (`nextSeq`) and is written only if nobody
 * else has moved it first (compare-and-set), so a duplicated or stale queue item finds `seq` moved
 * on and does nothing.
 */
export type RunStatus = 'running' | 'succeeded' | 'failed';
export type StepStatus = 'pending' | 'running' | 'succeeded' | 'failed' | 'skipped';

export interface StepAttempt {
  at: string;
  durationMs: number;
  httpStatus: number | null;
  error: TransportErrorKind | null;
}

export interface RunStepState {
  status: StepStatus;
  attempts: StepAttempt[];
  /** Delay steps: when the wait ends (epoch ms), set when the step starts waiting. */
  resumeAt?: number;
}

export interface Run {
  id: string;
  accountId: number;
  workflowId: string;
  /** The workflow's name and steps when the run started: later edits do not change a run. */
  workflowName: string;
  steps: WorkflowStep[];
  status: RunStatus;
  startedAt: Date;
  finishedAt: Date | null;
  /** The trigger body exactly as received (JSON text). */
  triggerBody: string;
  stepIndex: number;
  seq: number;
  stepStates: RunStepState[];
  /**
   * When the queue item the run waits for (the one at `seq`) is due: set whenever a step is queued
   * or rescheduled, null once the run ended. A running run long past it has lost its item (RunSweeper).
   */
  nextAt: Date | null;
}

export interface RunView {
  id: string;
  status: RunStatus;
  startedAt: string;
  finishedAt: string | null;
  trigger: { body: unknown };
  steps: Array<{ type: WorkflowStep['type']; status: StepStatus; attempts: StepAttempt[] }>;
}

/**
 * A new run, its first step running. A first step that is a delay starts waiting at once, so the
 * run's first queue item is the end of the wait: nothing needs to run in between.
 */
export function newRun(workflow: Workflow, triggerBody: string, now: Date): Run {
  const run: Run = {
    id: newId('run', now.getTime()),
    accountId: workflow.accountId,
    workflowId: workflow.id,
    workflowName: workflow.name,
    steps: workflow.steps,
    status: 'running',
    startedAt: now,
    finishedAt: null,
    triggerBody,
    stepIndex: 0,
    seq: 0,
    stepStates: workflow.steps.map((_, i) => ({ status: i === 0 ? 'running' : 'pending', attempts: [] })),
    nextAt: now,
  };
  const first = run.steps[0];
  if (first.type === 'delay') beginDelay(run, first, now);
  return run;
}

/** The current step, a delay, starts waiting: returns when the wait ends (the run's `nextAt`). */
export function beginDelay(run: Run, step: DelayStep, now: Date): Date {
  const resumeAt = now.getTime() + step.seconds * 1000;
  run.stepStates[run.stepIndex].resumeAt = resumeAt;
  run.nextAt = new Date(resumeAt);
  return run.nextAt;
}

/** The current step succeeded: the next one starts, or the run succeeds. */
export function completeStep(run: Run, now: Date): void {
  run.stepStates[run.stepIndex].status = 'succeeded';
  run.seq = nextSeq(run.seq);
  if (run.stepIndex + 1 < run.steps.length) {
    run.stepIndex += 1;
    run.stepStates[run.stepIndex].status = 'running';
  } else {
    run.status = 'succeeded';
    run.finishedAt = now;
    run.nextAt = null;
  }
}

/** The current step failed for good: the run fails and the remaining steps are skipped. */
export function failStep(run: Run, now: Date): void {
  run.stepStates[run.stepIndex].status = 'failed';
  for (let i = run.stepIndex + 1; i < run.stepStates.length; i++) run.stepStates[i].status = 'skipped';
  run.seq = nextSeq(run.seq);
  run.status = 'failed';
  run.finishedAt = now;
  run.nextAt = null;
}

export function toRunView(run: Run): RunView {
  return {
    id: run.id,
    status: run.status,
    startedAt: run.startedAt.toISOString(),
    finishedAt: run.finishedAt?.toISOString() ?? null,
    trigger: { body: presentableBody(run.triggerBody) },
    steps: run.steps.map((step, i) => ({ type: step.type, status: run.stepStates[i].status, attempts: run.stepStates[i].attempts })),
  };
}

/**
 * The stored trigger body as JSON, or null for one nested deeper than MAX_JSON_DEPTH (accepted
 * before that limit existed): answering with it would overflow the stack while serialising, and so
 * fail the whole list.
 */
function presentableBody(text: string): unknown {
  try {
    const body: unknown = JSON.parse(text);
    return exceedsDepth(body) ? null : body;
  } catch {
    return null;
  }
}

