import { randomBytes } from 'node:crypto';
import { CallOutcome, OutboundResult, SecretBox, WorkItem } from '../../kernel/src';
import { verify } from '../../signing/src';
import { WebhookTarget, WebhookTargetCaller, WebhookTargetsService, WebhookTargetsSettings } from '../../webhook-targets/src';
import { InMemoryTargetRepository, InMemoryTargetUsage } from '../../webhook-targets/src/testing/fakes';
import { AutomationObserver } from './automation-observer';
import { AutomationStepHandler } from './automation-step.handler';
import { AutomationsSettings } from './automations.settings';
import { AUTOMATION_STEP_TOPIC } from './run-step-work';
import { RunsService } from './runs.service';
import { InMemoryRunRepository } from './testing/fakes';
import { Workflow, WorkflowStep } from './workflow';
import { InMemoryUnitOfWork, InMemoryWorkQueue, ManualClock, ScriptedOutboundHttp } from '../../kernel/src/testing/kernel-fakes';

/** Keeps what the handler reported, for assertions. */
class RecordingObserver extends AutomationObserver {
  readonly calls: Array<CallOutcome & { durationMs: number }> = [];
  readonly finished: string[] = [];
  targetCalled(outcome: CallOutcome, durationMs: number): void {
    this.calls.push({ ...outcome, durationMs });
  }
  runFinished(status: string): void {
    this.finished.push(status);
  }
}

describe(AutomationStepHandler.name, () => {
  const ACCOUNT = 7;
  const KEY = 'tsk_a-signing-key-for-the-tests';
  const RETRIES = [10_000, 60_000, 300_000];
  let clock: ManualClock;
  let runs: InMemoryRunRepository;
  let targetRows: InMemoryTargetRepository;
  let queue: InMemoryWorkQueue;
  let http: ScriptedOutboundHttp;
  let starter: RunsService;
  let secrets: SecretBox;
  let target: WebhookTarget;
  let observer: RecordingObserver;
  let sut: AutomationStepHandler;

  function build(script: Array<Partial<OutboundResult>>): void {
    http = new ScriptedOutboundHttp(script);
    const uow = new InMemoryUnitOfWork();
    const settings = new WebhookTargetsSettings(false, 10_000);
    const targets = new WebhookTargetsService(targetRows, new InMemoryTargetUsage(), secrets, clock, settings, uow);
    observer = new RecordingObserver();
    sut = new AutomationStepHandler(runs, targets, new WebhookTargetCaller(http, secrets, clock, settings), queue, uow, clock, new AutomationsSettings(RETRIES, 'https://hooks.example.com'), observer);
    starter = new RunsService(runs, queue, clock, uow);
  }

  beforeEach(async () => {
    clock = new ManualClock();
    runs = new InMemoryRunRepository();
    targetRows = new InMemoryTargetRepository();
    queue = new InMemoryWorkQueue();
    secrets = new SecretBox(randomBytes(32));
    target = {
      id: 'tgt_01jd2x7q9m3k8p4r6t1v5w0y2z',
      accountId: ACCOUNT,
      name: 'CRM',
      url: 'https://crm.example.com/hook',
      headers: { 'X-Tenant': 't1' },
      signingKeySealed: secrets.seal(KEY),
      createdAt: clock.now(),
      updatedAt: clock.now(),
    };
    await targetRows.insert(target);
    build([{ status: 200 }]);
  });

  const workflow = (steps: WorkflowStep[]): Workflow => ({
    id: 'wf_01jd2x7q9m3k8p4r6t1v5w0y2z',
    accountId: ACCOUNT,
    name: 'Orders',
    state: 'active',
    trigger: { type: 'incoming_webhook' },
    steps,
    triggerTokenHash: 'h',
    createdAt: clock.now(),
    updatedAt: clock.now(),
  });
  const send = (body: unknown = { id: '{{ trigger.body.id }}' }): WorkflowStep => ({ type: 'send_webhook', targetId: target.id, body });

  /** Hands queue items to the handler in due order, moving the clock to each item's time. */
  async function drain(max = 50): Promise<WorkItem[]> {
    const handled: WorkItem[] = [];
    for (let item = queue.takeNext(); item && handled.length < max; item = queue.takeNext()) {
      const wait = (item.runAt?.getTime() ?? 0) - clock.nowMs();
      if (wait > 0) clock.advance(wait);
      expect(item.topic).toBe(AUTOMATION_STEP_TOPIC);
      expect(await sut.handle({ id: 'w', topic: item.topic, payload: item.payload, deliveryCount: 1, failures: 0 })).toEqual({ kind: 'done' });
      handled.push(item);
    }
    return handled;
  }

  it('records the run with its first queue item, then runs the steps in order', async () => {
    const runId = await starter.start(workflow([send({ n: '{{ trigger.body.n }}', who: 'run {{ run.id }} of {{ workflow.name }}' }), send({ a: '{{ account.id }}' })]), '{"n": 5}');
    expect(queue.items).toEqual([{ topic: AUTOMATION_STEP_TOPIC, payload: { runId, seq: 0 }, key: `${runId}:0` }]);
    expect(http.requests).toHaveLength(0);

    await drain();
    expect(http.requests.map((r) => JSON.parse(r.body as string))).toEqual([{ n: 5, who: `run ${runId} of Orders` }, { a: ACCOUNT }]);
    const run = runs.rows.get(runId)!;
    expect(run.status).toBe('succeeded');
    expect(run.finishedAt).toEqual(clock.now());
    expect(run.stepStates.map((s) => s.status)).toEqual(['succeeded', 'succeeded']);
    expect(run.stepStates[0].attempts).toEqual([{ at: '2025-11-22T02:00:00.000Z', durationMs: 3, httpStatus: 200, error: null }]);
  });

  it('sends the custom headers, JSON content type and a verifiable signature over the exact body', async () => {
    await starter.start(workflow([send()]), '{"id": "o-1"}');
    await drain();
    const { headers, body } = http.requests[0];
    expect(headers).toMatchObject({ 'X-Tenant': 't1', 'Content-Type': 'application/json' });
    expect(() => verify(body as string, headers['X-Service-Automation-Signature'], KEY, { now: clock.nowMs() / 1000 })).not.toThrow();
  });

  it('waits out a delay as a queue item due later, then goes on', async () => {
    const runId = await starter.start(workflow([{ type: 'delay', seconds: 3600 }, send()]), '{"id": 1}');
    await sut.handle({ id: 'w', topic: AUTOMATION_STEP_TOPIC, payload: queue.takeNext()!.payload, deliveryCount: 1, failures: 0 });
    expect(queue.items).toEqual([{ topic: AUTOMATION_STEP_TOPIC, payload: { runId, seq: 1 }, runAt: new Date('2025-11-22T03:00:00.000Z'), key: `${runId}:1` }]);
    expect(runs.rows.get(runId)!.stepStates[0]).toMatchObject({ status: 'running', attempts: [] });

    await drain();
    expect(clock.now().toISOString()).toBe('2025-11-22T03:00:00.000Z');
    expect(http.requests).toHaveLength(1);
    expect(runs.rows.get(runId)!.status).toBe('succeeded');
  });

  it('asks the queue to come back when a delay item arrives early', async () => {
    const runId = await starter.start(workflow([{ type: 'delay', seconds: 60 }]), '{}');
    await sut.handle({ id: 'w', topic: AUTOMATION_STEP_TOPIC, payload: queue.takeNext()!.payload, deliveryCount: 1, failures: 0 });
    const early = await sut.handle({ id: 'w', topic: AUTOMATION_STEP_TOPIC, payload: { runId, seq: 1 }, deliveryCount: 1, failures: 0 });
    expect(early).toEqual({ kind: 'retry', at: new Date('2025-11-22T02:01:00.000Z') });
    expect(runs.rows.get(runId)!.status).toBe('running');
  });

  it('retries a failed call on the schedule and succeeds, recording every attempt', async () => {
    build([{ status: 500 }, { status: null, error: 'timeout', durationMs: 10_000 }, { status: 201 }]);
    const runId = await starter.start(workflow([send()]), '{}');
    const handled = await drain();
    expect(handled.map((i) => i.runAt?.toISOString())).toEqual([undefined, '2025-11-22T02:00:10.000Z', '2025-11-22T02:01:10.000Z']);
    const run = runs.rows.get(runId)!;
    expect(run.status).toBe('succeeded');
    expect(run.stepStates[0].attempts).toEqual([
      { at: '2025-11-22T02:00:00.000Z', durationMs: 3, httpStatus: 500, error: null },
      { at: '2025-11-22T02:00:10.000Z', durationMs: 10_000, httpStatus: null, error: 'timeout' },
      { at: '2025-11-22T02:01:10.000Z', durationMs: 3, httpStatus: 201, error: null },
    ]);
    expect(observer.calls).toEqual([
      { result: 'failed', reason: '5xx', durationMs: 3 },
      { result: 'failed', reason: 'timeout', durationMs: 10_000 },
      { result: 'succeeded', reason: '2xx', durationMs: 3 },
    ]);
    expect(observer.finished).toEqual(['succeeded']);
  });

  it('fails the run after the last retry and skips the steps after it', async () => {
    build([{ status: 302 }]);
    const runId = await starter.start(workflow([send(), { type: 'delay', seconds: 5 }, send()]), '{}');
    await drain();
    const run = runs.rows.get(runId)!;
    expect(http.requests).toHaveLength(1 + RETRIES.length);
    expect(run.status).toBe('failed');
    expect(run.finishedAt).not.toBeNull();
    expect(run.stepStates.map((s) => s.status)).toEqual(['failed', 'skipped', 'skipped']);
    expect(run.stepStates[0].attempts.map((a) => a.httpStatus)).toEqual([302, 302, 302, 302]);
    expect(queue.items).toHaveLength(0);
    expect(observer.calls.map((c) => c.reason)).toEqual(['3xx', '3xx', '3xx', '3xx']);
    expect(observer.finished).toEqual(['failed']);
  });

  it('does nothing for a duplicated or stale item', async () => {
    const runId = await starter.start(workflow([send(), send()]), '{}');
    const first = queue.takeNext()!;
    await sut.handle({ id: 'w', topic: first.topic, payload: first.payload, deliveryCount: 1, failures: 0 });
    await sut.handle({ id: 'w', topic: first.topic, payload: first.payload, deliveryCount: 2, failures: 0 });
    expect(http.requests).toHaveLength(1);
    await drain();
    expect(await sut.handle({ id: 'w', topic: first.topic, payload: { runId, seq: 1 }, deliveryCount: 3, failures: 0 })).toEqual({ kind: 'done' });
    expect(http.requests).toHaveLength(2);
  });

  it('records nothing when another worker moved the run while this one was calling', async () => {
    const runId = await starter.start(workflow([send()]), '{}');
    const item = queue.takeNext()!;
    const stored = runs.rows.get(runId)!;
    const original = http.post.bind(http);
    http.post = async (request) => {
      stored.seq = 99; // another worker finished the step meanwhile
      return original(request);
    };
    await sut.handle({ id: 'w', topic: item.topic, payload: item.payload, deliveryCount: 1, failures: 0 });
    expect(runs.rows.get(runId)!.stepStates[0].attempts).toEqual([]);
    expect(queue.items).toHaveLength(0);
  });

  it('fails the step without a call when its target was deleted', async () => {
    const runId = await starter.start(workflow([send(), send()]), '{}');
    await targetRows.delete(ACCOUNT, target.id);
    await drain();
    expect(http.requests).toHaveLength(0);
    expect(runs.rows.get(runId)!).toMatchObject({ status: 'failed', stepStates: [{ status: 'failed', attempts: [] }, { status: 'skipped' }] });
  });

  it('drops items of runs that no longer exist, and malformed items', async () => {
    expect(await sut.handle({ id: 'w', topic: AUTOMATION_STEP_TOPIC, payload: { runId: 'run_gone', seq: 0 }, deliveryCount: 1, failures: 0 })).toMatchObject({ kind: 'drop' });
    expect(await sut.handle({ id: 'w', topic: AUTOMATION_STEP_TOPIC, payload: { runId: 1 }, deliveryCount: 1, failures: 0 })).toMatchObject({ kind: 'drop' });
  });

  it('keeps a run on the steps it started with when the workflow changes', async () => {
    const wf = workflow([send({ v: 1 })]);
    await starter.start(wf, '{}');
    wf.steps = [send({ v: 2 })];
    await drain();
    expect(JSON.parse(http.requests[0].body as string)).toEqual({ v: 1 });
  });
});
