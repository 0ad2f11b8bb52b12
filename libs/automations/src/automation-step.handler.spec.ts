import { verify } from '../../signing/src';
import { AutomationStepHandler } from './automation-step.handler';
import { AUTOMATION_STEP_TOPIC } from './run-step-work';
import { StepWorkerRig, stepWorkerRig, StepWorkerRigOptions } from './testing/step-worker-rig';

describe(AutomationStepHandler.name, () => {
  const ACCOUNT = 7;
  const KEY = 'tsk_a-signing-key-for-the-tests';
  const RETRIES = [10_000, 60_000, 300_000];
  let rig: StepWorkerRig;
  let sut: AutomationStepHandler;

  async function build(script: StepWorkerRigOptions['script']): Promise<void> {
    rig = await stepWorkerRig({ script, retryScheduleMs: RETRIES, accountId: ACCOUNT, targetHeaders: { 'X-Tenant': 't1' }, signingKey: KEY });
    sut = rig.handler;
  }

  beforeEach(() => build([{ status: 200 }]));

  it('records the run with its first queue item, then runs the steps in order', async () => {
    const runId = await rig.starter.start(rig.workflow([rig.send({ n: '{{ trigger.body.n }}', who: 'run {{ run.id }} of {{ workflow.name }}' }), rig.send({ a: '{{ account.id }}' })]), '{"n": 5}');
    expect(rig.queue.items).toEqual([{ topic: AUTOMATION_STEP_TOPIC, payload: { runId, seq: 0 }, key: `${runId}:0`, sweptBackIfLost: true }]);
    expect(rig.http.requests).toHaveLength(0);

    await rig.drain();
    expect(rig.http.requests.map((r) => JSON.parse(r.body as string))).toEqual([{ n: 5, who: `run ${runId} of Orders` }, { a: ACCOUNT }]);
    const run = rig.runs.rows.get(runId)!;
    expect(run.status).toBe('succeeded');
    expect(run.finishedAt).toEqual(rig.clock.now());
    expect(run.stepStates.map((s) => s.status)).toEqual(['succeeded', 'succeeded']);
    expect(run.stepStates[0].attempts).toEqual([{ at: '2025-11-22T02:00:00.000Z', durationMs: 3, httpStatus: 200, error: null }]);
  });

  it('sends the custom headers, JSON content type and a verifiable signature over the exact body', async () => {
    await rig.starter.start(rig.workflow([rig.send()]), '{"id": "o-1"}');
    await rig.drain();
    const { headers, body } = rig.http.requests[0];
    expect(headers).toMatchObject({ 'X-Tenant': 't1', 'Content-Type': 'application/json' });
    expect(() => verify(body as string, headers['X-Service-Automation-Signature'], KEY, { now: rig.clock.nowMs() / 1000 })).not.toThrow();
  });

  it('starts a run whose first step is a delay already waiting: its first item is due when the wait ends', async () => {
    const runId = await rig.starter.start(rig.workflow([{ type: 'delay', seconds: 3600 }, rig.send()]), '{"id": 1}');
    expect(rig.queue.items).toEqual([{ topic: AUTOMATION_STEP_TOPIC, payload: { runId, seq: 0 }, runAt: new Date('2025-11-22T03:00:00.000Z'), key: `${runId}:0`, sweptBackIfLost: true }]);
    expect(rig.runs.rows.get(runId)!).toMatchObject({ nextAt: new Date('2025-11-22T03:00:00.000Z'), stepStates: [{ status: 'running', attempts: [], resumeAt: Date.parse('2025-11-22T03:00:00.000Z') }, { status: 'pending' }] });

    await rig.drain();
    expect(rig.clock.now().toISOString()).toBe('2025-11-22T03:00:00.000Z');
    expect(rig.http.requests).toHaveLength(1);
    expect(rig.runs.rows.get(runId)!.status).toBe('succeeded');
  });

  it('waits out a delay after another step as a queue item due later, then goes on', async () => {
    const runId = await rig.starter.start(rig.workflow([rig.send(), { type: 'delay', seconds: 3600 }, rig.send()]), '{"id": 1}');
    await sut.handle({ id: 'w', topic: AUTOMATION_STEP_TOPIC, payload: rig.queue.takeNext()!.payload, deliveryCount: 1, failures: 0 });
    await sut.handle({ id: 'w', topic: AUTOMATION_STEP_TOPIC, payload: rig.queue.takeNext()!.payload, deliveryCount: 1, failures: 0 });
    expect(rig.queue.items).toEqual([{ topic: AUTOMATION_STEP_TOPIC, payload: { runId, seq: 2 }, runAt: new Date('2025-11-22T03:00:00.000Z'), key: `${runId}:2`, sweptBackIfLost: true }]);
    expect(rig.runs.rows.get(runId)!.stepStates[1]).toMatchObject({ status: 'running', attempts: [] });

    await rig.drain();
    expect(rig.clock.now().toISOString()).toBe('2025-11-22T03:00:00.000Z');
    expect(rig.http.requests).toHaveLength(2);
    expect(rig.runs.rows.get(runId)!.status).toBe('succeeded');
  });

  it('asks the queue to come back when a delay item arrives early', async () => {
    const runId = await rig.starter.start(rig.workflow([{ type: 'delay', seconds: 60 }]), '{}');
    const early = await sut.handle({ id: 'w', topic: AUTOMATION_STEP_TOPIC, payload: rig.queue.takeNext()!.payload, deliveryCount: 1, failures: 0 });
    expect(early).toEqual({ kind: 'retry', at: new Date('2025-11-22T02:01:00.000Z') });
    expect(rig.runs.rows.get(runId)!.status).toBe('running');
  });

  it('retries a failed call on the schedule and succeeds, recording every attempt', async () => {
    await build([{ status: 500 }, { status: null, error: 'timeout', durationMs: 10_000 }, { status: 201 }]);
    const runId = await rig.starter.start(rig.workflow([rig.send()]), '{}');
    const handled = await rig.drain();
    expect(handled.map((i) => i.runAt?.toISOString())).toEqual([undefined, '2025-11-22T02:00:10.000Z', '2025-11-22T02:01:10.000Z']);
    const run = rig.runs.rows.get(runId)!;
    expect(run.status).toBe('succeeded');
    expect(run.stepStates[0].attempts).toEqual([
      { at: '2025-11-22T02:00:00.000Z', durationMs: 3, httpStatus: 500, error: null },
      { at: '2025-11-22T02:00:10.000Z', durationMs: 10_000, httpStatus: null, error: 'timeout' },
      { at: '2025-11-22T02:01:10.000Z', durationMs: 3, httpStatus: 201, error: null },
    ]);
    expect(rig.observer.calls).toEqual([
      { result: 'failed', reason: '5xx', durationMs: 3 },
      { result: 'failed', reason: 'timeout', durationMs: 10_000 },
      { result: 'succeeded', reason: '2xx', durationMs: 3 },
    ]);
    expect(rig.observer.finished).toEqual(['succeeded']);
  });

  it('calls a target that answered 429 or 503 with Retry-After again no sooner than it asked, up to a minute', async () => {
    await build([{ status: 429, retryAfterMs: 30_000 }, { status: 503, retryAfterMs: 3_600_000 }, { status: 503, retryAfterMs: 1_000 }, { status: 200 }]);
    await rig.starter.start(rig.workflow([rig.send()]), '{}');
    const handled = await rig.drain();
    // asked 30 s (schedule 10 s), asked an hour (capped at a minute; schedule 1 min), asked 1 s (schedule 5 min)
    expect(handled.map((i) => i.runAt?.toISOString())).toEqual([undefined, '2025-11-22T02:00:30.000Z', '2025-11-22T02:01:30.000Z', '2025-11-22T02:06:30.000Z']);
  });

  describe('with targets that hang', () => {
    const OTHER_ACCOUNT = 8;
    let hang: { promise: Promise<void>; resolve: () => void };
    /** Starts `count` runs of `accountId` on `targetId` and hands their items to the handler, without waiting. */
    const startRuns = async (accountId: number, targetId: string, count: number) => {
      for (let i = 0; i < count; i++) {
        await rig.starter.start({ ...rig.workflow([{ type: 'send_webhook', targetId, body: {} }]), id: `wf_${accountId}_${i}`, accountId }, '{}');
      }
      return rig.queue.items.splice(0).map((item) => rig.handle(item));
    };
    const tick = () => new Promise((resolve) => setImmediate(resolve));

    beforeEach(async () => {
      rig = await stepWorkerRig({ retryScheduleMs: RETRIES, accountId: ACCOUNT, callConcurrency: 4, originConcurrency: 2 });
      sut = rig.handler;
      let resolve!: () => void;
      hang = { promise: new Promise<void>((r) => (resolve = r)), resolve };
      const answer = rig.http.post.bind(rig.http);
      rig.http.post = async (request) => (new URL(request.url).hostname === 'crm.example.com' ? hang.promise.then(() => answer(request)) : answer(request));
    });

    const otherTarget = async (url: string) => {
      const target = { ...rig.target, id: 'tgt_01jd2x7q9m3k8p4r6t1v5w0y3a', accountId: OTHER_ACCOUNT, url };
      await rig.targetRows.insert(target);
      return target;
    };

    it("calls another account's target at once while one account's calls hang at the same origin, the waiting ones parked", async () => {
      const hanging = await startRuns(ACCOUNT, rig.target.id, 10);
      await tick();
      // 2 calls to the origin, 8 waiting there: none of them counts against the items the handler takes
      expect(rig.http.requests).toHaveLength(0);
      expect(sut.spareCapacity()).toBe(4);
      const other = await otherTarget('https://crm.example.com/other-tenant');
      // the same origin: its call waits for one place there, which goes to it before the 8 waiting
      const [healthy] = await startRuns(OTHER_ACCOUNT, other.id, 1);
      hang.resolve();
      await healthy;
      // (calls are recorded as they are answered: the two that hung, then the other account's, before the 8 waiting)
      expect(rig.http.requests.map((r) => r.url).slice(0, 3)).toEqual(['https://crm.example.com/hook', 'https://crm.example.com/hook', 'https://crm.example.com/other-tenant']);
      await Promise.all(hanging);
    });

    it("keeps a quarter of the call places from one account hanging on several origins: another account's call goes at once", async () => {
      // three origins of the same host (ports), 2 places each: the account may hold 3 of the 4 call places
      const targetIds = [rig.target.id, 'tgt_01jd2x7q9m3k8p4r6t1v5w0y3b', 'tgt_01jd2x7q9m3k8p4r6t1v5w0y3c'];
      for (const [i, id] of targetIds.slice(1).entries()) await rig.targetRows.insert({ ...rig.target, id, url: `https://crm.example.com:${8441 + i}/hook` });
      const hanging: Array<Promise<unknown>> = [];
      for (const id of targetIds) hanging.push(...(await startRuns(ACCOUNT, id, 4)));
      await tick();
      expect(sut.spareCapacity()).toBe(4);
      const other = await otherTarget('https://elsewhere.example.com/hook');
      const [healthy] = await startRuns(OTHER_ACCOUNT, other.id, 1);
      await expect(healthy).resolves.toEqual({ kind: 'done' });
      expect(rig.http.requests.map((r) => r.url)).toEqual(['https://elsewhere.example.com/hook']);
      hang.resolve();
      await Promise.all(hanging);
    });

    it("sends a step back to the queue at once where the account's calls to that origin have stalled, its run due when it returns", async () => {
      const hanging = await startRuns(ACCOUNT, rig.target.id, 4);
      await tick();
      // Two calls hang and two wait; nothing started there for longer than the rate's window.
      rig.clock.advance(11_000);
      const [shed] = await startRuns(ACCOUNT, rig.target.id, 1);
      const outcome = await shed;
      expect(outcome).toEqual({ kind: 'retry', at: expect.any(Date) });
      const at = (outcome as { at: Date }).at;
      expect(at.getTime()).toBeGreaterThanOrEqual(rig.clock.nowMs() + 2_500);
      expect([...rig.runs.rows.values()].filter((run) => run.nextAt?.getTime() === at.getTime())).toHaveLength(1);
      hang.resolve();
      await Promise.all(hanging);
    });

    it('hands back, due now, the steps still waiting for their places at shutdown', async () => {
      const pending = await startRuns(ACCOUNT, rig.target.id, 4);
      await tick();
      sut.stop();
      hang.resolve();
      const outcomes = await Promise.all(pending);
      expect(outcomes.filter((o) => o.kind === 'retry')).toHaveLength(2);
      expect(rig.http.requests).toHaveLength(2);
    });
  });

  it('fails the run after the last retry and skips the steps after it', async () => {
    await build([{ status: 302 }]);
    const runId = await rig.starter.start(rig.workflow([rig.send(), { type: 'delay', seconds: 5 }, rig.send()]), '{}');
    await rig.drain();
    const run = rig.runs.rows.get(runId)!;
    expect(rig.http.requests).toHaveLength(1 + RETRIES.length);
    expect(run.status).toBe('failed');
    expect(run.finishedAt).not.toBeNull();
    expect(run.stepStates.map((s) => s.status)).toEqual(['failed', 'skipped', 'skipped']);
    expect(run.stepStates[0].attempts.map((a) => a.httpStatus)).toEqual([302, 302, 302, 302]);
    expect(rig.queue.items).toHaveLength(0);
    expect(rig.observer.calls.map((c) => c.reason)).toEqual(['3xx', '3xx', '3xx', '3xx']);
    expect(rig.observer.finished).toEqual(['failed']);
  });

  it('does nothing for a duplicated or stale item', async () => {
    const runId = await rig.starter.start(rig.workflow([rig.send(), rig.send()]), '{}');
    const first = rig.queue.takeNext()!;
    await sut.handle({ id: 'w', topic: first.topic, payload: first.payload, deliveryCount: 1, failures: 0 });
    await sut.handle({ id: 'w', topic: first.topic, payload: first.payload, deliveryCount: 2, failures: 0 });
    expect(rig.http.requests).toHaveLength(1);
    await rig.drain();
    expect(await sut.handle({ id: 'w', topic: first.topic, payload: { runId, seq: 1 }, deliveryCount: 3, failures: 0 })).toEqual({ kind: 'done' });
    expect(rig.http.requests).toHaveLength(2);
  });

  it('records nothing when another worker moved the run while this one was calling', async () => {
    const runId = await rig.starter.start(rig.workflow([rig.send()]), '{}');
    const item = rig.queue.takeNext()!;
    const stored = rig.runs.rows.get(runId)!;
    const original = rig.http.post.bind(rig.http);
    rig.http.post = async (request) => {
      stored.seq = 99; // another worker finished the step meanwhile
      return original(request);
    };
    await sut.handle({ id: 'w', topic: item.topic, payload: item.payload, deliveryCount: 1, failures: 0 });
    expect(rig.runs.rows.get(runId)!.stepStates[0].attempts).toEqual([]);
    expect(rig.queue.items).toHaveLength(0);
  });

  it('fails the step without a call when its target was deleted', async () => {
    const runId = await rig.starter.start(rig.workflow([rig.send(), rig.send()]), '{}');
    await rig.targetRows.delete(ACCOUNT, rig.target.id);
    await rig.drain();
    expect(rig.http.requests).toHaveLength(0);
    expect(rig.runs.rows.get(runId)!).toMatchObject({ status: 'failed', stepStates: [{ status: 'failed', attempts: [] }, { status: 'skipped' }] });
  });

  it('drops items of runs that no longer exist, and malformed items', async () => {
    expect(await sut.handle({ id: 'w', topic: AUTOMATION_STEP_TOPIC, payload: { runId: 'run_gone', seq: 0 }, deliveryCount: 1, failures: 0 })).toMatchObject({ kind: 'drop' });
    expect(await sut.handle({ id: 'w', topic: AUTOMATION_STEP_TOPIC, payload: { runId: 1 }, deliveryCount: 1, failures: 0 })).toMatchObject({ kind: 'drop' });
  });

  it('keeps a run on the steps it started with when the workflow changes', async () => {
    const wf = rig.workflow([rig.send({ v: 1 })]);
    await rig.starter.start(wf, '{}');
    wf.steps = [rig.send({ v: 2 })];
    await rig.drain();
    expect(JSON.parse(rig.http.requests[0].body as string)).toEqual({ v: 1 });
  });
});
