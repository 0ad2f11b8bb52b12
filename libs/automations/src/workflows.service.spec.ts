import { WebhookTarget } from '../../webhook-targets/src';
import { InMemoryTargetRepository } from '../../webhook-targets/src/testing/fakes';
import { AutomationsSettings } from './automations.settings';
import { newRun } from './run';
import { InMemoryRunRepository, InMemoryWorkflowRepository } from './testing/fakes';
import { hashTriggerToken } from './trigger-token';
import { WorkflowsService } from './workflows.service';
import { InMemoryUnitOfWork, ManualClock } from '../../kernel/src/testing/kernel-fakes';

describe(WorkflowsService.name, () => {
  const ACCOUNT = 1;
  const OTHER = 2;
  const TARGET = 'tgt_01jd2x7q9m3k8p4r6t1v5w0y2z';
  const FOREIGN_TARGET = 'tgt_01jd2x7q9m3k8p4r6t1v5w0y30';
  let workflows: InMemoryWorkflowRepository;
  let runs: InMemoryRunRepository;
  let targets: InMemoryTargetRepository;
  let clock: ManualClock;
  let sut: WorkflowsService;

  const target = (id: string, accountId: number): WebhookTarget => ({
    id,
    accountId,
    name: 't',
    url: 'https://example.com/',
    headers: {},
    signingKeySealed: null,
    createdAt: new Date(),
    updatedAt: new Date(),
  });
  const valid = () => ({
    name: 'Orders',
    trigger: { type: 'incoming_webhook' },
    steps: [
      { type: 'send_webhook', targetId: TARGET, body: { order: '{{ trigger.body.id }}' } },
      { type: 'delay', seconds: 60 },
    ],
  });

  beforeEach(async () => {
    workflows = new InMemoryWorkflowRepository();
    runs = new InMemoryRunRepository();
    targets = new InMemoryTargetRepository();
    clock = new ManualClock();
    await targets.insert(target(TARGET, ACCOUNT));
    await targets.insert(target(FOREIGN_TARGET, OTHER));
    sut = new WorkflowsService(workflows, runs, targets, clock, new InMemoryUnitOfWork(), new AutomationsSettings([], 'https://hooks.example.com'));
  });

  it('creates a draft and shows it as given', async () => {
    const created = await sut.create(ACCOUNT, valid());
    expect(created).toEqual({
      id: expect.stringMatching(/^wf_[0-9a-z]{26}$/),
      ...valid(),
      state: 'draft',
      createdAt: '2025-11-22T02:00:00.000Z',
      updatedAt: '2025-11-22T02:00:00.000Z',
    });
    expect(await sut.list(ACCOUNT)).toEqual({ items: [created], nextCursor: null });
    expect(await sut.list(OTHER)).toEqual({ items: [], nextCursor: null });
  });

  const invalid: Array<[string, (body: ReturnType<typeof valid>) => unknown, string]> = [
    ['a body that is not an object', () => [1], 'JSON object'],
    ['a body that is null', () => null, 'JSON object'],
    ['an unknown top-level key', (b) => ({ ...b, state: 'active' }), 'state is not a known property'],
    ['an empty name', (b) => ({ ...b, name: ' ' }), 'name'],
    ['a name that is not a string', (b) => ({ ...b, name: 5 }), 'name'],
    ['another trigger type', (b) => ({ ...b, trigger: { type: 'schedule' } }), 'trigger'],
    ['an extra trigger key', (b) => ({ ...b, trigger: { type: 'incoming_webhook', x: 1 } }), 'trigger.x'],
    ['no steps', (b) => ({ ...b, steps: [] }), 'non-empty'],
    ['steps not an array', (b) => ({ ...b, steps: {} }), 'non-empty'],
    ['51 steps', (b) => ({ ...b, steps: Array.from({ length: 51 }, () => ({ type: 'delay', seconds: 1 })) }), 'at most 50'],
    ['an unknown step type', (b) => ({ ...b, steps: [{ type: 'send_sms' }] }), 'steps[0].type'],
    ['a step that is not an object', (b) => ({ ...b, steps: ['delay'] }), 'steps[0]'],
    ['an unknown target', (b) => ({ ...b, steps: [{ type: 'send_webhook', targetId: 'tgt_01jd2x7q9m3k8p4r6t1v5w0y31', body: {} }] }), 'no webhook target'],
    ["another account's target", (b) => ({ ...b, steps: [{ type: 'send_webhook', targetId: FOREIGN_TARGET, body: {} }] }), 'no webhook target'],
    ['a malformed target id', (b) => ({ ...b, steps: [{ type: 'send_webhook', targetId: 'nope', body: {} }] }), 'no webhook target'],
    ['a missing body', (b) => ({ ...b, steps: [{ type: 'send_webhook', targetId: TARGET }] }), 'body is required'],
    ['an unbalanced {{', (b) => ({ ...b, steps: [{ type: 'send_webhook', targetId: TARGET, body: { a: '{{ run.id' } }] }), 'steps[0].body.a'],
    ['an unknown variable', (b) => ({ ...b, steps: [{ type: 'send_webhook', targetId: TARGET, body: '{{ contact.email }}' }] }), 'unknown variable'],
    ['an extra step key', (b) => ({ ...b, steps: [{ type: 'delay', seconds: 5, until: 'x' }] }), 'steps[0].until'],
    ['a delay of 0 s', (b) => ({ ...b, steps: [{ type: 'delay', seconds: 0 }] }), 'seconds'],
    ['a delay over 30 days', (b) => ({ ...b, steps: [{ type: 'delay', seconds: 2_592_001 }] }), 'seconds'],
    ['a fractional delay', (b) => ({ ...b, steps: [{ type: 'delay', seconds: 1.5 }] }), 'seconds'],
    ['a delay as text', (b) => ({ ...b, steps: [{ type: 'delay', seconds: '60' }] }), 'seconds'],
  ];

  it.each(invalid)('refuses %s on create and on update', async (_case, change, message) => {
    const expected = { code: 'invalid_parameter', message: expect.stringContaining(message) };
    await expect(sut.create(ACCOUNT, change(valid()) as never)).rejects.toMatchObject(expected);
    const created = await sut.create(ACCOUNT, valid());
    await expect(sut.update(ACCOUNT, created.id, change(valid()) as never)).rejects.toMatchObject(expected);
  });

  it('accepts the delay bounds', async () => {
    await expect(sut.create(ACCOUNT, { ...valid(), steps: [{ type: 'delay', seconds: 1 }, { type: 'delay', seconds: 2_592_000 }] })).resolves.toBeDefined();
  });

  const tokenOf = (url: string) => url.slice('https://hooks.example.com/hooks/'.length);

  it('moves draft -> active -> inactive -> active, the token hash following the state', async () => {
    const created = await sut.create(ACCOUNT, valid());
    await expect(sut.deactivate(ACCOUNT, created.id)).rejects.toMatchObject({ code: 'invalid_parameter' });
    const first = await sut.activate(ACCOUNT, created.id);
    expect(first.state).toBe('active');
    const hash1 = hashTriggerToken(tokenOf(first.triggerUrl));
    expect(workflows.rows.get(created.id)!.triggerTokenHash).toBe(hash1);
    expect((await sut.deactivate(ACCOUNT, created.id)).state).toBe('inactive');
    expect(workflows.rows.get(created.id)!.triggerTokenHash).toBeNull();
    expect((await sut.deactivate(ACCOUNT, created.id)).state).toBe('inactive');
    const second = await sut.activate(ACCOUNT, created.id);
    expect(second.state).toBe('active');
    const [voided, current] = await workflows.findActiveByTriggerTokenHashes([hash1, hashTriggerToken(tokenOf(second.triggerUrl))]);
    expect(voided).toBeNull();
    expect(current?.id).toBe(created.id);
  });

  it('issues a secret URL at activation and stores only its hash', async () => {
    const { id } = await sut.create(ACCOUNT, valid());
    const activated = await sut.activate(ACCOUNT, id);
    expect(activated).toMatchObject({ id, state: 'active', triggerUrl: expect.stringMatching(/^https:\/\/hooks\.example\.com\/hooks\/[A-Za-z0-9_-]{43}$/) });
    const token = tokenOf(activated.triggerUrl);
    const stored = workflows.rows.get(id)!;
    expect(stored.triggerTokenHash).toBe(hashTriggerToken(token));
    expect(JSON.stringify(stored)).not.toContain(token);
  });

  it('issues a new URL at every activation', async () => {
    const { id } = await sut.create(ACCOUNT, valid());
    const first = (await sut.activate(ACCOUNT, id)).triggerUrl;
    expect((await sut.activate(ACCOUNT, id)).triggerUrl).not.toBe(first);
  });

  it('keeps state and trigger token across an update', async () => {
    const created = await sut.create(ACCOUNT, valid());
    const hash = hashTriggerToken(tokenOf((await sut.activate(ACCOUNT, created.id)).triggerUrl));
    clock.advance(5000);
    const updated = await sut.update(ACCOUNT, created.id, { ...valid(), name: 'Renamed', steps: [{ type: 'delay', seconds: 5 }] });
    expect(updated).toMatchObject({ name: 'Renamed', state: 'active', steps: [{ type: 'delay', seconds: 5 }], updatedAt: '2025-11-22T02:00:05.000Z' });
    expect(workflows.rows.get(created.id)!.triggerTokenHash).toBe(hash);
  });

  it("answers not_found for another account's workflow on every route", async () => {
    const created = await sut.create(ACCOUNT, valid());
    for (const call of [
      () => sut.get(OTHER, created.id),
      () => sut.update(OTHER, created.id, valid()),
      () => sut.delete(OTHER, created.id),
      () => sut.activate(OTHER, created.id),
      () => sut.deactivate(OTHER, created.id),
      () => sut.listRuns(OTHER, created.id),
    ]) {
      await expect(call()).rejects.toMatchObject({ code: 'not_found' });
    }
    expect(workflows.rows.get(created.id)!.state).toBe('draft');
  });

  it('deletes a workflow with its runs', async () => {
    const created = await sut.create(ACCOUNT, valid());
    const workflow = (await workflows.findById(ACCOUNT, created.id))!;
    await runs.insertMany([newRun(workflow, '{}', clock.now())]);
    await sut.delete(ACCOUNT, created.id);
    expect(runs.rows.size).toBe(0);
    await expect(sut.get(ACCOUNT, created.id)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('lists runs newest first within the limit, refusing a limit out of range', async () => {
    const created = await sut.create(ACCOUNT, valid());
    const workflow = (await workflows.findById(ACCOUNT, created.id))!;
    for (let i = 0; i < 3; i++) {
      await runs.insertMany([newRun(workflow, JSON.stringify({ i }), clock.now())]);
      clock.advance(1000);
    }
    const { runs: listed, nextCursor } = await sut.listRuns(ACCOUNT, created.id, { limit: 2 });
    expect(listed.map((r) => r.trigger.body)).toEqual([{ i: 2 }, { i: 1 }]);
    const rest = await sut.listRuns(ACCOUNT, created.id, { limit: 2, cursor: nextCursor! });
    expect(rest).toEqual({ runs: [expect.objectContaining({ trigger: { body: { i: 0 } } })], nextCursor: null });
    expect(listed[0]).toEqual({
      id: expect.stringMatching(/^run_/),
      status: 'running',
      startedAt: '2025-11-22T02:00:02.000Z',
      finishedAt: null,
      trigger: { body: { i: 2 } },
      steps: [
        { type: 'send_webhook', status: 'running', attempts: [] },
        { type: 'delay', status: 'pending', attempts: [] },
      ],
    });
    for (const limit of [0, 101, 1.5]) await expect(sut.listRuns(ACCOUNT, created.id, { limit })).rejects.toMatchObject({ code: 'invalid_parameter' });
    for (const cursor of ['', 'x', nextCursor!.slice(1), Buffer.from('1.run_x').toString('base64url')]) {
      await expect(sut.listRuns(ACCOUNT, created.id, { cursor })).rejects.toMatchObject({ code: 'invalid_parameter' });
    }
  });
});
