import { TypeormWebhookTargetRepository, TypeormTargetUsage } from '../../libs/adapters/typeorm/src/automations/typeorm-webhook-target.repository';
import { TypeormWorkflowRepository } from '../../libs/adapters/typeorm/src/automations/typeorm-workflow.repository';
import { Workflow, WorkflowRepository } from '../../libs/automations/src';
import { InMemoryWorkflowRepository, WorkflowTargetUsage } from '../../libs/automations/src/testing/fakes';
import { newId } from '../../libs/kernel/src';
import { TargetUsage, WebhookTarget, WebhookTargetRepository } from '../../libs/webhook-targets/src';
import { InMemoryTargetRepository } from '../../libs/webhook-targets/src/testing/fakes';
import { openTestDatabase, TestDatabase } from '../support/databases';
import { profileAvailable } from '../support/test-app';

interface AutomationPorts {
  targets: WebhookTargetRepository;
  workflows: WorkflowRepository;
  usage: TargetUsage;
  storage: TestDatabase | null;
}

const sql = (storage: TestDatabase): AutomationPorts => ({
  targets: new TypeormWebhookTargetRepository(storage.db),
  workflows: new TypeormWorkflowRepository(storage.db),
  usage: new TypeormTargetUsage(storage.db),
  storage,
});

/** Targets, workflows and target usage on the in-memory fakes and on the SQL adapters over SQLite and MariaDB. */
const backends: Array<[string, () => Promise<AutomationPorts | null>]> = [
  [
    'in-memory fakes',
    async () => {
      const workflows = new InMemoryWorkflowRepository();
      return { targets: new InMemoryTargetRepository(), workflows, usage: new WorkflowTargetUsage(workflows), storage: null };
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
});
