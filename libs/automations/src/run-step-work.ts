import { WorkItem } from '../../kernel/src';
import { AUTOMATION_STEP_TOPIC } from './automations.settings';

/** The queue item of a run's step at `seq` (due at `runAt`, or now when null); its key dedups repeats. */
export function runStepItem(runId: string, seq: number, runAt: Date | null): WorkItem {
  return { topic: AUTOMATION_STEP_TOPIC, payload: { runId, seq }, key: `${runId}:${seq}`, ...(runAt === null ? {} : { runAt }) };
}
