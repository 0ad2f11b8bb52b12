import { SweepSettings } from '../../kernel/src';
import { InMemoryJobLease } from '../../kernel/src/testing/kernel-fakes';
import { AUTOMATION_STEP_TOPIC } from './run-step-work';
import { RunSweeper } from './run-sweeper';
import { stepWorkerRig, StepWorkerRigOptions } from './testing/step-worker-rig';

describe(RunSweeper.name, () => {
  const STALE_AFTER = 120_000;
  const RETRIES = [10_000, 60_000];

  const setUp = async (script?: StepWorkerRigOptions['script']) => {
    const rig = await stepWorkerRig({ script, retryScheduleMs: RETRIES });
    const lease = new InMemoryJobLease();
    const sut = new RunSweeper(rig.runs, rig.queue, rig.uow, lease, rig.clock, new SweepSettings(30_000, STALE_AFTER));
    return { ...rig, sut, lease, send: rig.send() };
  };

  it('keeps when the next step is due on the run: queued, delayed, retried, and cleared when the run ends', async () => {
    const { clock, runs, queue, starter, workflow, send, handle } = await setUp([{ status: 500 }, { status: 200 }]);
    const runId = await starter.start(workflow([{ type: 'delay', seconds: 60 }, send]), '{}');
    expect(runs.rows.get(runId)!.nextAt).toEqual(new Date(clock.nowMs() + 60_000)); // a leading delay waits from the start
    clock.advance(60_000);
    await handle(queue.takeNext()!); // the delay ends: the send step is queued for now
    expect(runs.rows.get(runId)!.nextAt).toEqual(clock.now());
    await handle(queue.takeNext()!); // 500: a retry in 10 s
    expect(runs.rows.get(runId)!.nextAt).toEqual(new Date(clock.nowMs() + 10_000));
    clock.advance(10_000);
    await handle(queue.takeNext()!);
    expect(runs.rows.get(runId)!).toMatchObject({ status: 'succeeded', nextAt: null });
  });

  it('re-queues a running run whose item was lost once it is stale, with a new seq that outdates the old item; the run completes', async () => {
    const { clock, runs, queue, http, starter, sut, workflow, send, handle, drain } = await setUp();
    const runId = await starter.start(workflow([{ type: 'delay', seconds: 60 }, send]), '{}');
    expect(runs.rows.get(runId)!.nextAt).toEqual(new Date(clock.nowMs() + 60_000)); // a leading delay waits from the start
    const [lost] = queue.items.splice(0); // the queue lost the delay's item (seq 0, due in 60 s)
    expect(lost.payload).toEqual({ runId, seq: 0 });
    clock.advance(60_000 + STALE_AFTER);
    expect(await sut.sweep()).toBe(0); // due, but not stale yet
    clock.advance(1);
    expect(await sut.sweep()).toBe(1);
    expect(queue.items).toEqual([{ topic: AUTOMATION_STEP_TOPIC, payload: { runId, seq: 1 }, runAt: clock.now(), key: `${runId}:1`, sweptBackIfLost: true }]);
    expect(runs.rows.get(runId)!).toMatchObject({ status: 'running', seq: 1, nextAt: clock.now() });
    expect(await sut.sweep()).toBe(0); // rescheduled for now: not stale again until staleAfter passes

    expect(await handle(lost)).toEqual({ kind: 'done' }); // a surviving old item is outdated
    expect(runs.rows.get(runId)!.seq).toBe(1);
    await drain();
    expect(http.requests).toHaveLength(1);
    expect(runs.rows.get(runId)!).toMatchObject({ status: 'succeeded', nextAt: null });
    expect(runs.rows.get(runId)!.stepStates.map((s) => s.status)).toEqual(['succeeded', 'succeeded']);
  });

  it('leaves finished runs and runs whose item is merely due alone', async () => {
    const { clock, queue, starter, sut, workflow, send, drain } = await setUp();
    await starter.start(workflow([send]), '{}');
    await drain();
    await starter.start(workflow([{ type: 'delay', seconds: 3600 }]), '{}');
    queue.items.splice(0);
    clock.advance(STALE_AFTER - 1);
    expect(await sut.sweep()).toBe(0);
  });

  it('skips the run while another process holds its lease', async () => {
    const { clock, queue, starter, sut, lease, workflow, send } = await setUp();
    await starter.start(workflow([send]), '{}');
    queue.items.splice(0);
    clock.advance(STALE_AFTER + 1);
    await lease.acquire('run-sweeper', 'another-process', clock.now(), 60_000);
    expect(await sut.sweep()).toBe(0);
    clock.advance(60_001);
    expect(await sut.sweep()).toBe(1);
  });
});
