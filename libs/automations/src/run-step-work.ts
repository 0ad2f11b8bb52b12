import { WorkItem } from '../../kernel/src';

/** The queue topic of run steps. */
export const AUTOMATION_STEP_TOPIC = 'automation-step';

/** The queue item of a run's step at `seq` (due at `runAt`, or now when null); its key dedups repeats. */
export function runStepItem(runId: string, seq: number, runAt: Date | null): WorkItem {
  // The RunSweeper re-queues a running run whose step item was lost.
  return { topic: AUTOMATION_STEP_TOPIC, payload: { runId, seq }, key: `${runId}:${seq}`, sweptBackIfLost: true, ...(runAt === null ? {} : { runAt }) };
}
