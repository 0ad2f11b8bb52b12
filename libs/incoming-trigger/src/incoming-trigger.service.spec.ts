import { AutomationsSettings, hashTriggerToken, RunsService, WorkflowsService } from '../../automations/src';
import { InMemoryRunRepository, InMemoryWorkflowRepository } from '../../automations/src/testing/fakes';
import { InMemoryTargetRepository } from '../../webhook-targets/src/testing/fakes';
import { IncomingTriggerService } from './incoming-trigger.service';
import { IncomingTriggerSettings } from './incoming-trigger.settings';
import { InMemoryUnitOfWork, InMemoryWorkQueue, ManualClock } from '../../kernel/src/testing/kernel-fakes';

describe(IncomingTriggerService.name, () => {
  const ACCOUNT = 3;
  let workflows: InMemoryWorkflowRepository;
  let runs: InMemoryRunRepository;
  let queue: InMemoryWorkQueue;
  let clock: ManualClock;
  let sut: IncomingTriggerService;
  let service: WorkflowsService;
  let workflowId: string;

  beforeEach(async () => {
    workflows = new InMemoryWorkflowRepository();
    runs = new InMemoryRunRepository();
    queue = new InMemoryWorkQueue();
    clock = new ManualClock();
    const uow = new InMemoryUnitOfWork();
    service = new WorkflowsService(workflows, runs, new InMemoryTargetRepository(), clock, uow, new AutomationsSettings([], 'https://hooks.example.com'));
    sut = new IncomingTriggerService(workflows, new RunsService(runs, queue, clock, uow), clock, new IncomingTriggerSettings({ burst: 3, perSecond: 1 }));
    workflowId = (await service.create(ACCOUNT, { name: 'Orders', trigger: { type: 'incoming_webhook' }, steps: [{ type: 'delay', seconds: 10 }] })).id;
  });

  const tokenOf = (url: string) => url.slice('https://hooks.example.com/hooks/'.length);

  it('finds the workflow by the hash of the token it is called with', async () => {
    const token = tokenOf((await service.activate(ACCOUNT, workflowId)).triggerUrl);
    expect(workflows.rows.get(workflowId)!.triggerTokenHash).toBe(hashTriggerToken(token));
    await expect(sut.accept(token, '{}')).resolves.toEqual({ runId: expect.any(String) });
  });

  it('records a run with the body as received, and its first queue item', async () => {
    const token = tokenOf((await service.activate(ACCOUNT, workflowId)).triggerUrl);
    const raw = '  {"b": [1, 2.50, "x"], "a": null}\n';
    const { runId } = await sut.accept(token, raw);
    expect(runId).toMatch(/^run_[0-9a-z]{26}$/);
    expect(runs.rows.get(runId)).toMatchObject({ workflowId, accountId: ACCOUNT, triggerBody: raw, status: 'running' });
    expect(queue.items).toEqual([expect.objectContaining({ payload: { runId, seq: 0 } })]);
  });

  it.each(['null', '"text"', '12', 'true', '[]', '[{"a":1}]'])('accepts the JSON value %s', async (raw) => {
    const token = tokenOf((await service.activate(ACCOUNT, workflowId)).triggerUrl);
    await expect(sut.accept(token, raw)).resolves.toEqual({ runId: expect.any(String) });
  });

  it.each(['', '{', '{"a":1}x', "{'a':1}", 'NaN'])('refuses %j as invalid_json without recording a run', async (raw) => {
    const token = tokenOf((await service.activate(ACCOUNT, workflowId)).triggerUrl);
    await expect(sut.accept(token, raw)).rejects.toMatchObject({ code: 'invalid_json' });
    expect(runs.rows.size).toBe(0);
  });

  it('voids the old URL at every activation and at deactivation, with one 404 for unknown and inactive', async () => {
    const first = tokenOf((await service.activate(ACCOUNT, workflowId)).triggerUrl);
    const second = tokenOf((await service.activate(ACCOUNT, workflowId)).triggerUrl);
    expect(second).not.toBe(first);
    const unknown = await sut.accept(first, '{}').catch((e: unknown) => e);
    expect(unknown).toMatchObject({ code: 'not_found', message: 'no active trigger at this URL' });
    await expect(sut.accept(second, '{}')).resolves.toBeDefined();

    expect((await service.deactivate(ACCOUNT, workflowId)).state).toBe('inactive');
    const inactive = await sut.accept(second, '{}').catch((e: unknown) => e);
    expect(inactive).toEqual(unknown);
  });

  it('checks the token before the body', async () => {
    await expect(sut.accept('nope', 'not json')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('rate-limits each URL on its own, with a Retry-After', async () => {
    const a = tokenOf((await service.activate(ACCOUNT, workflowId)).triggerUrl);
    for (let i = 0; i < 3; i++) await sut.accept(a, '{}');
    await expect(sut.accept(a, '{}')).rejects.toMatchObject({ code: 'rate_limited', retryAfterSeconds: 1 });
    await expect(sut.accept('another-token', '{}')).rejects.toMatchObject({ code: 'not_found' });
    clock.advance(1000);
    await expect(sut.accept(a, '{}')).resolves.toBeDefined();
  });

  it('takes no rate-limit bucket for unknown tokens, so a flood of them cannot reset the limit of a real URL', async () => {
    const token = tokenOf((await service.activate(ACCOUNT, workflowId)).triggerUrl);
    for (let i = 0; i < 3; i++) await sut.accept(token, '{}');
    await expect(sut.accept(token, '{}')).rejects.toMatchObject({ code: 'rate_limited' });
    // More unknown tokens than the limiter keeps buckets (10,000): each is a 404 and takes none.
    for (let i = 0; i < 10_001; i += 1000) {
      const unknown = Array.from({ length: 1000 }, (_, k) => sut.accept(`unknown-${i + k}`, '{}').catch((error: { code: string }) => error.code));
      expect(new Set(await Promise.all(unknown))).toEqual(new Set(['not_found']));
    }
    await expect(sut.accept(token, '{}')).rejects.toMatchObject({ code: 'rate_limited' });
  });
});
