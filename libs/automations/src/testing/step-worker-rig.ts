import { randomBytes } from 'node:crypto';
import { CallOutcome, OutboundResult, SecretBox, WorkItem } from '../../../kernel/src';
import { InMemoryUnitOfWork, InMemoryWorkQueue, ManualClock, ScriptedOutboundHttp } from '../../../kernel/src/testing/kernel-fakes';
import { WebhookTarget, WebhookTargetCaller, WebhookTargetsService, WebhookTargetsSettings } from '../../../webhook-targets/src';
import { InMemoryTargetRepository, InMemoryTargetUsage } from '../../../webhook-targets/src/testing/fakes';
import { AutomationObserver } from '../automation-observer';
import { AutomationStepHandler } from '../automation-step.handler';
import { AutomationsSettings } from '../automations.settings';
import { AUTOMATION_STEP_TOPIC } from '../run-step-work';
import { RunsService } from '../runs.service';
import { Workflow, WorkflowStep } from '../workflow';
import { InMemoryRunRepository } from './fakes';

/** Keeps what the handler reported, for assertions. */
export class RecordingObserver extends AutomationObserver {
  readonly calls: Array<CallOutcome & { durationMs: number }> = [];
  readonly finished: string[] = [];
  targetCalled(outcome: CallOutcome, durationMs: number): void {
    this.calls.push({ ...outcome, durationMs });
  }
  runFinished(status: string): void {
    this.finished.push(status);
  }
}

export interface StepWorkerRigOptions {
  /** Delays before each retry of a failed call (TARGET_RETRY_SCHEDULE). */
  retryScheduleMs: readonly number[];
  /** How the target answers, call after call; the last answer repeats. */
  script?: Array<Partial<OutboundResult>>;
  accountId?: number;
  /** The target's custom headers and, when given, its signing key. */
  targetHeaders?: Record<string, string>;
  signingKey?: string;
  /** DISPATCHER_CONCURRENCY and DISPATCHER_ORIGIN_CONCURRENCY as the handler reads them. */
  callConcurrency?: number;
  originConcurrency?: number;
}

/**
 * An AutomationStepHandler over in-memory fakes with one webhook target, and what the specs of
 * runs do with it: build a workflow, start a run, hand the queue's items to the handler.
 */
export async function stepWorkerRig(options: StepWorkerRigOptions) {
  const accountId = options.accountId ?? 7;
  const clock = new ManualClock();
  const runs = new InMemoryRunRepository();
  const uow = new InMemoryUnitOfWork();
  const queue = new InMemoryWorkQueue(uow, clock);
  const secrets = new SecretBox(randomBytes(32));
  const targetRows = new InMemoryTargetRepository();
  const target: WebhookTarget = {
    id: 'tgt_01jd2x7q9m3k8p4r6t1v5w0y2z',
    accountId,
    name: 'CRM',
    url: 'https://crm.example.com/hook',
    headers: options.targetHeaders ?? {},
    signingKeySealed: options.signingKey === undefined ? null : secrets.seal(options.signingKey),
    createdAt: clock.now(),
    updatedAt: clock.now(),
  };
  await targetRows.insert(target);
  const http = new ScriptedOutboundHttp(options.script ?? [{ status: 200 }]);
  const targetSettings = new WebhookTargetsSettings(false, 10_000);
  const targets = new WebhookTargetsService(targetRows, new InMemoryTargetUsage(), secrets, clock, targetSettings, uow);
  const observer = new RecordingObserver();
  const settings = new AutomationsSettings(options.retryScheduleMs, 'https://hooks.example.com', options.callConcurrency, options.originConcurrency);
  const handler = new AutomationStepHandler(runs, targets, new WebhookTargetCaller(http, secrets, clock, targetSettings), queue, uow, clock, settings, observer);
  const starter = new RunsService(runs, queue, clock, uow);

  const workflow = (steps: WorkflowStep[]): Workflow => ({
    id: 'wf_01jd2x7q9m3k8p4r6t1v5w0y2z',
    accountId,
    name: 'Orders',
    state: 'active',
    trigger: { type: 'incoming_webhook' },
    steps,
    triggerTokenHash: 'h',
    createdAt: clock.now(),
    updatedAt: clock.now(),
  });
  /** A send_webhook step to the rig's target. */
  const send = (body: unknown = { id: '{{ trigger.body.id }}' }): WorkflowStep => ({ type: 'send_webhook', targetId: target.id, body });
  const handle = (item: Pick<WorkItem, 'topic' | 'payload'>, deliveryCount = 1) => handler.handle({ id: 'w', topic: item.topic, payload: item.payload, deliveryCount, failures: 0 });
  /** Hands queue items to the handler in due order, moving the clock to each item's time; throws unless each is done. */
  const drain = async (max = 50): Promise<WorkItem[]> => {
    const handled: WorkItem[] = [];
    for (let item = queue.takeNext(); item && handled.length < max; item = queue.takeNext()) {
      const wait = (item.runAt?.getTime() ?? 0) - clock.nowMs();
      if (wait > 0) clock.advance(wait);
      const outcome = await handle(item);
      if (item.topic !== AUTOMATION_STEP_TOPIC || outcome.kind !== 'done') throw new Error(`item ${JSON.stringify(item)} was not done: ${JSON.stringify(outcome)}`);
      handled.push(item);
    }
    return handled;
  };

  return { clock, runs, queue, uow, secrets, targetRows, target, http, observer, handler, starter, workflow, send, handle, drain };
}

export type StepWorkerRig = Awaited<ReturnType<typeof stepWorkerRig>>;
