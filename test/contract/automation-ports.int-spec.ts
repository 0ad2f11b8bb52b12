import { TypeormWebhookTargetRepository, TypeormTargetUsage } from '../../libs/adapters/sql/src/automations/typeorm-webhook-target.repository';
import { TypeormWorkflowRepository } from '../../libs/adapters/sql/src/automations/typeorm-workflow.repository';
import { Run, RunRepository, Workflow, WorkflowRepository } from '../../libs/automations/src';
import { InMemoryRunRepository, InMemoryWorkflowRepository, WorkflowTargetUsage } from '../../libs/automations/src/testing/fakes';
import { TypeormRunRepository } from '../../libs/adapters/sql/src/automations/typeorm-run.repository';
import { randomBytes } from 'node:crypto';
import { newId, SecretBox } from '../../libs/kernel/src';
import { TargetUsage, WebhookTarget, WebhookTargetRepository } from '../../libs/webhook-targets/src';
import { InMemoryTargetRepository } from '../../libs/webhook-targets/src/testing/fakes';
import { openTestDatabase, TestDatabase } from '../support/databases';
import { profileAvailable } from '../support/test-app';

interface AutomationPorts {
  targets: WebhookTargetRepository;
  workflows: WorkflowRepository;
  runs: RunRepository;
  transaction<T>(work: () => Promise<T>): Promise<T>;
  usage: TargetUsage;
  storage: TestDatabase | null;
}

const sql = (storage: TestDatabase): AutomationPorts => ({
  targets: new TypeormWebhookTargetRepository(storage.db, new SecretBox(randomBytes(32))),
  workflows: new TypeormWorkflowRepository(storage.db),
  runs: new TypeormRunRepository(storage.db),
  transaction: (work) => storage.db.transaction(work),
  usage: new TypeormTargetUsage(storage.db),
  storage,
});

/** Targets, workflows, runs and target usage on the in-memory fakes and on the SQL adapters over SQLite and MariaDB. */
const backends: Array<[string, () => Promise<AutomationPorts | null>]> = [
  [
    'in-memory fakes',
    async () => {
      const workflows = new InMemoryWorkflowRepository();
      return { targets: new InMemoryTargetRepository(), workflows, runs: new InMemoryRunRepository(), transaction: (work) => work(), usage: new WorkflowTargetUsage(workflows), storage: null };
    },
  ],
  ['sqlite', async () => sql(await openTestDatabase('sqlite'))],
  ['mariadb', async () => ((await profileAvailable('mysql-nats')) ? sql(await openTestDatabase('mysql')) : null)],
];

const T0 = new Date('2026-11-24T10:00:00.000Z');

describe.each(backends)('automation ports contract (%s)', (_name, open) => {
  let ports: AutomationPorts | null;
  let nextAccount = 500;
  beforeAll(async () => {
    ports = await open();
  });
  afterAll(async () => ports?.storage?.drop());
  const p = () => ports!;

  const target = (accountId: number, n = 0, overrides: Partial<WebhookTarget> = {}): WebhookTarget => ({
    id: newId('tgt', T0.getTime() + n),
    accountId,
    name: `Target ${n}`,
    url: 'https://crm.example.com/in',
    headers: { 'X-Api-Token': 'abc' },
    signingKeySealed: null,
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  });
  const workflow = (accountId: number, targetIds: string[], n = 0, overrides: Partial<Workflow> = {}): Workflow => ({
    id: newId('wf', T0.getTime() + n),
    accountId,
    name: `Workflow ${n}`,
    state: 'draft',
    trigger: { type: 'incoming_webhook' },
    steps: [...targetIds.map((targetId) => ({ type: 'send_webhook' as const, targetId, body: { email: '{{trigger.email}}' } })), { type: 'delay', seconds: 60 }],
    triggerTokenHash: null,
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  });

  it('stores targets per account: read back whole, listed by id after a cursor, counted, updated, deleted', async () => {
    if (!ports) return;
    const accountId = ++nextAccount;
    const [a, b, c] = [target(accountId, 1), target(accountId, 2, { signingKeySealed: 'v1:sealed' }), target(accountId, 3)];
    for (const t of [a, b, c, target(accountId + 1000, 4)]) await p().targets.insert(t);
    expect(await p().targets.findById(accountId, b.id)).toEqual(b);
    expect(await p().targets.findById(accountId + 1, b.id)).toBeNull();
    expect((await p().targets.listByAccount(accountId, null, 2)).map((t) => t.id)).toEqual([a.id, b.id]);
    expect((await p().targets.listByAccount(accountId, b.id, 2)).map((t) => t.id)).toEqual([c.id]);
    expect(await p().targets.countByAccount(accountId)).toBe(3);
    const changed = { ...a, name: 'Renamed', headers: { 'X-Other': 'v' }, signingKeySealed: 'v1:new', updatedAt: new Date(T0.getTime() + 5) };
    await p().targets.update(changed);
    await p().targets.update({ ...c, accountId: accountId + 1, name: 'Not mine' });
    expect(await p().targets.findById(accountId, a.id)).toEqual(changed);
    expect((await p().targets.findById(accountId, c.id))!.name).toBe(c.name);
    expect(await p().targets.delete(accountId + 1, a.id)).toBe(false);
    expect(await p().targets.delete(accountId, a.id)).toBe(true);
    expect(await p().targets.findById(accountId, a.id)).toBeNull();
  });

  it('reads a target and a workflow to change them (lockById) as findById does, in a transaction or not; another account gets null', async () => {
    if (!ports) return;
    const accountId = ++nextAccount;
    const t = target(accountId, 1, { signingKeySealed: 'v1:sealed' });
    await p().targets.insert(t);
    const w = workflow(accountId, [t.id], 1, { state: 'active', triggerTokenHash: 'c'.repeat(64) });
    await p().workflows.insert(w);
    expect(await p().targets.lockById(accountId, t.id)).toEqual(t);
    expect(await p().workflows.lockById(accountId, w.id)).toEqual(w);
    await p().transaction(async () => {
      expect(await p().targets.lockById(accountId, t.id)).toEqual(t);
      expect(await p().workflows.lockById(accountId, w.id)).toEqual(w);
      expect(await p().targets.lockById(accountId + 1, t.id)).toBeNull();
      expect(await p().workflows.lockById(accountId + 1, w.id)).toBeNull();
    });
    // the lock's no-op write (SQLite) changes nothing that is read back
    expect(await p().targets.findById(accountId, t.id)).toEqual(t);
    expect(await p().workflows.findById(accountId, w.id)).toEqual(w);
  });

  it('stores workflows per account with their steps; finds active ones by trigger token hash, in the order asked', async () => {
    if (!ports) return;
    const accountId = ++nextAccount;
    const t = target(accountId, 1);
    await p().targets.insert(t);
    const draft = workflow(accountId, [t.id], 1);
    const active = workflow(accountId, [t.id], 2, { state: 'active', triggerTokenHash: 'a'.repeat(64) });
    const inactive = workflow(accountId, [], 3, { state: 'inactive', triggerTokenHash: null });
    for (const w of [draft, active, inactive]) await p().workflows.insert(w);
    expect(await p().workflows.findById(accountId, active.id)).toEqual(active);
    expect(await p().workflows.findById(accountId + 1, active.id)).toBeNull();
    expect((await p().workflows.listByAccount(accountId, draft.id, 10)).map((w) => w.id)).toEqual([active.id, inactive.id]);
    expect(await p().workflows.countByAccount(accountId)).toBe(3);
    const found = await p().workflows.findActiveByTriggerTokenHashes(['b'.repeat(64), 'a'.repeat(64), 'a'.repeat(64)]);
    expect(found.map((w) => w?.id ?? null)).toEqual([null, active.id, active.id]);
    await p().workflows.update({ ...active, state: 'inactive', triggerTokenHash: null, name: 'Paused', updatedAt: new Date(T0.getTime() + 9) });
    expect(await p().workflows.findActiveByTriggerTokenHashes(['a'.repeat(64)])).toEqual([null]);
    expect(await p().workflows.findById(accountId, active.id)).toMatchObject({ state: 'inactive', name: 'Paused', triggerTokenHash: null });
  });

  it('knows which workflows call a target, following every save and delete of a workflow', async () => {
    if (!ports) return;
    const accountId = ++nextAccount;
    const [t1, t2] = [target(accountId, 1), target(accountId, 2)];
    for (const t of [t1, t2]) await p().targets.insert(t);
    const w1 = workflow(accountId, [t1.id], 1);
    const w2 = workflow(accountId, [t1.id, t2.id], 2);
    for (const w of [w1, w2]) await p().workflows.insert(w);
    expect(await p().usage.workflowsUsing(accountId, t1.id)).toEqual([
      { id: w1.id, name: w1.name },
      { id: w2.id, name: w2.name },
    ]);
    expect(await p().usage.workflowsUsing(accountId + 1, t1.id)).toEqual([]);
    await p().workflows.update({ ...w1, steps: [{ type: 'send_webhook', targetId: t2.id, body: {} }] });
    expect((await p().usage.workflowsUsing(accountId, t1.id)).map((w) => w.id)).toEqual([w2.id]);
    expect(await p().workflows.delete(accountId, w2.id)).toBe(true);
    expect(await p().workflows.delete(accountId, w2.id)).toBe(false);
    expect(await p().usage.workflowsUsing(accountId, t1.id)).toEqual([]);
    expect((await p().usage.workflowsUsing(accountId, t2.id)).map((w) => w.id)).toEqual([w1.id]);
  });

  const run = (accountId: number, workflowId: string, n: number, overrides: Partial<Run> = {}): Run => ({
    id: newId('run', T0.getTime() + n),
    accountId,
    workflowId,
    workflowName: 'Onboarding',
    steps: [{ type: 'delay', seconds: 60 }],
    status: 'running',
    startedAt: new Date(T0.getTime() + n),
    finishedAt: null,
    triggerBody: '{"email":"zoë@example.com","deep":[[1]]}',
    stepIndex: 0,
    seq: 0,
    stepStates: [{ status: 'running', attempts: [], resumeAt: T0.getTime() + 60_000 }],
    nextAt: new Date(T0.getTime() + 60_000),
    ...overrides,
  });

  it('stores runs whole, saves progress only over the seq it read, lists them newest first', async () => {
    if (!ports) return;
    const accountId = ++nextAccount;
    const [a, b] = [run(accountId, 'wf_x', 1), run(accountId, 'wf_x', 2)];
    await p().runs.insertMany([a, b, run(accountId, 'wf_other', 3)]);
    expect(await p().runs.findById(a.id)).toEqual(a);
    const done: Run = { ...a, status: 'succeeded', finishedAt: new Date(T0.getTime() + 61_000), stepIndex: 1, seq: 1, nextAt: null, stepStates: [{ status: 'succeeded', attempts: [] }] };
    expect(await p().runs.saveProgress(done, 0)).toBe(true);
    expect(await p().runs.saveProgress({ ...done, status: 'failed' }, 0)).toBe(false);
    expect(await p().runs.findById(a.id)).toEqual(done);
    expect((await p().runs.listByWorkflow(accountId, 'wf_x', 10)).map((r) => r.id)).toEqual([b.id, a.id]);
    expect((await p().runs.listByWorkflow(accountId, 'wf_x', 10, { startedAt: b.startedAt, id: b.id })).map((r) => r.id)).toEqual([a.id]);
    expect(await p().runs.listByWorkflow(accountId, 'wf_x', 10, { startedAt: a.startedAt, id: a.id })).toEqual([]);
    // Runs started in the same millisecond are ordered, and paged, by id.
    const [c, d, e] = [run(accountId, 'wf_same', 5, { startedAt: T0 }), run(accountId, 'wf_same', 6, { startedAt: T0 }), run(accountId, 'wf_same', 7, { startedAt: T0 })];
    await p().runs.insertMany([d, e, c]);
    expect((await p().runs.listByWorkflow(accountId, 'wf_same', 10)).map((r) => r.id)).toEqual([e.id, d.id, c.id]);
    expect((await p().runs.listByWorkflow(accountId, 'wf_same', 1, { startedAt: T0, id: e.id })).map((r) => r.id)).toEqual([d.id]);
    expect(await p().runs.listByWorkflow(accountId + 1, 'wf_x', 10)).toEqual([]);
    await p().runs.deleteByWorkflow(accountId, 'wf_x');
    expect(await p().runs.listByWorkflow(accountId, 'wf_x', 10)).toEqual([]);
    expect(await p().runs.listByWorkflow(accountId, 'wf_other', 10)).toHaveLength(1);
  });

  it('reschedules running runs long past their next step, bumping seq; leaves the others', async () => {
    if (!ports) return;
    const accountId = ++nextAccount;
    const stale = run(accountId, 'wf_s', 1, { nextAt: new Date(T0.getTime() - 600_000) });
    const due = run(accountId, 'wf_s', 2, { nextAt: new Date(T0.getTime() - 1_000) });
    const ended = run(accountId, 'wf_s', 3, { status: 'failed', nextAt: null, finishedAt: T0 });
    await p().runs.insertMany([stale, due, ended]);
    const rescheduled = await p().transaction(() => p().runs.rescheduleStale(new Date(T0.getTime() - 60_000), T0, 100));
    expect(rescheduled.filter((r) => [stale.id, due.id, ended.id].includes(r.id))).toEqual([{ id: stale.id, seq: 1, nextAt: T0 }]);
    // A step handler's failure postpones a running run at its seq to when its item comes back: no longer stale.
    const failing = run(accountId, 'wf_s', 4, { nextAt: new Date(T0.getTime() - 600_000) });
    await p().runs.insertMany([failing]);
    await p().runs.postpone(failing.id, 1, new Date(T0.getTime() + 60_000));
    expect((await p().runs.findById(failing.id))!.nextAt).toEqual(failing.nextAt);
    await p().runs.postpone(failing.id, 0, new Date(T0.getTime() + 60_000));
    expect((await p().runs.findById(failing.id))!.nextAt).toEqual(new Date(T0.getTime() + 60_000));
    expect((await p().transaction(() => p().runs.rescheduleStale(new Date(T0.getTime() - 60_000), T0, 100))).map((r) => r.id)).not.toContain(failing.id);
    expect(await p().runs.findById(stale.id)).toMatchObject({ seq: 1, nextAt: T0, status: 'running' });
    expect(await p().runs.findById(due.id)).toMatchObject({ seq: 0 });
  });

  it('purges finished runs started before a time, oldest first, never a running one', async () => {
    if (!ports) return;
    const accountId = ++nextAccount;
    const old = (n: number, status: Run['status']) => run(accountId, 'wf_p', n, { startedAt: new Date(T0.getTime() - 40 * 86_400_000 + n), status, nextAt: status === 'running' ? T0 : null });
    await p().runs.insertMany([old(1, 'succeeded'), old(2, 'failed'), old(3, 'running'), run(accountId, 'wf_p', 4, { status: 'succeeded', nextAt: null })]);
    const cutoff = new Date(T0.getTime() - 30 * 86_400_000);
    expect(await p().transaction(() => p().runs.deleteStartedBefore(cutoff, 1))).toBe(1);
    expect(await p().transaction(() => p().runs.deleteStartedBefore(cutoff, 10))).toBe(1);
    expect(await p().transaction(() => p().runs.deleteStartedBefore(cutoff, 10))).toBe(0);
    expect((await p().runs.listByWorkflow(accountId, 'wf_p', 10)).map((r) => r.status).sort()).toEqual(['running', 'succeeded']);
  });
});
