import { Injectable } from '@nestjs/common';
import { Clock, echoed, IdPage, IdPageQuery, invalidParameter, limitExceeded, looksLikeId, newId, notFound, readIdPage, UnitOfWork } from '../../kernel/src';
import { WebhookTargetRepository } from '../../webhook-targets/src';
import { RunRepository, WorkflowRepository } from './automations.repository';
import { AutomationsSettings } from './automations.settings';
import { toRunView, RunView } from './run';
import { decodeRunCursor, encodeRunCursor } from './run-cursor';
import { targetIdsOf, toWorkflowView, Workflow, WorkflowStep, WorkflowView } from './workflow';
import { generateTriggerToken, hashTriggerToken } from './trigger-token';
import { parseWorkflowDefinition } from './workflow-definition';

/** The create/PUT body as received: validated whole by parseWorkflowDefinition. */
export type WorkflowInput = unknown;

export const RUNS_PAGE = { default: 20, max: 100 } as const;

/** CONTRACT §9.6: the 101st workflow of an account is refused. */
export const MAX_WORKFLOWS_PER_ACCOUNT = 100;

export interface ActivatedWorkflowView extends WorkflowView {
  /** `${PUBLIC_BASE_URL}/hooks/<token>`: shown in the activation response alone. */
  triggerUrl: string;
}

/**
 * Workflows of an account: CRUD, the state machine (draft -> active <-> inactive), the secret
 * trigger URL issued at each activation, and their runs. Only the URL token's SHA-256 is stored;
 * each activation issues a new token and voids the previous one; deactivation voids it too.
 * libs/incoming-trigger receives the calls of those URLs.
 */

@Injectable()
export class WorkflowsService {
  constructor(
    private readonly workflows: WorkflowRepository,
    private readonly runs: RunRepository,
    private readonly targets: WebhookTargetRepository,
    private readonly clock: Clock,
    private readonly uow: UnitOfWork,
    private readonly settings: AutomationsSettings,
  ) {}

  async create(accountId: number, input: WorkflowInput): Promise<WorkflowView> {
    const definition = parseWorkflowDefinition(input);
    const now = this.clock.now();
    const workflow: Workflow = { id: newId('wf', now.getTime()), accountId, ...definition, state: 'draft', triggerTokenHash: null, createdAt: now, updatedAt: now };
    await this.uow.run(async () => {
      if ((await this.workflows.countByAccount(accountId)) >= MAX_WORKFLOWS_PER_ACCOUNT) throw limitExceeded(`an account has at most ${MAX_WORKFLOWS_PER_ACCOUNT} workflows`);
      await this.checkTargets(accountId, definition.steps);
      await this.workflows.insert(workflow);
    });
    return toWorkflowView(workflow);
  }

  async list(accountId: number, query: IdPageQuery = {}): Promise<IdPage<WorkflowView>> {
    const page = await readIdPage('wf', query, (afterId, limit) => this.workflows.listByAccount(accountId, afterId, limit));
    return { items: page.items.map(toWorkflowView), nextCursor: page.nextCursor };
  }

  async get(accountId: number, id: string): Promise<WorkflowView> {
    return toWorkflowView(await this.find(accountId, id));
  }

  /** Replaces name, trigger and steps; state and trigger URL are kept. Runs under way keep their own copy. */
  async update(accountId: number, id: string, input: WorkflowInput): Promise<WorkflowView> {
    const definition = parseWorkflowDefinition(input);
    return this.uow.run(async () => {
      const existing = await this.find(accountId, id, { lock: true });
      await this.checkTargets(accountId, definition.steps);
      const workflow: Workflow = { ...existing, ...definition, updatedAt: this.clock.now() };
      await this.workflows.update(workflow);
      return toWorkflowView(workflow);
    });
  }

  /** Deletes the workflow and its runs; queued work of those runs finds nothing and is dropped. */
  async delete(accountId: number, id: string): Promise<void> {
    await this.uow.run(async () => {
      await this.find(accountId, id, { lock: true });
      await this.runs.deleteByWorkflow(accountId, id);
      await this.workflows.delete(accountId, id);
    });
  }

  /** Makes the workflow active with a new secret trigger URL, shown in this answer alone; any previous URL is void. */
  async activate(accountId: number, id: string): Promise<ActivatedWorkflowView> {
    const token = generateTriggerToken();
    const view = await this.uow.run(async () => {
      const workflow = await this.find(accountId, id, { lock: true });
      const active: Workflow = { ...workflow, state: 'active', triggerTokenHash: hashTriggerToken(token), updatedAt: this.clock.now() };
      await this.workflows.update(active);
      return toWorkflowView(active);
    });
    return { ...view, triggerUrl: `${this.settings.publicBaseUrl}/hooks/${token}` };
  }

  /** active -> inactive, voiding the trigger URL; an inactive workflow stays as it is; a draft was never active. */
  async deactivate(accountId: number, id: string): Promise<WorkflowView> {
    return this.uow.run(async () => {
      const workflow = await this.find(accountId, id, { lock: true });
      if (workflow.state === 'draft') throw invalidParameter(`workflow ${id} is a draft: only an active workflow can be deactivated`);
      if (workflow.state === 'inactive') return toWorkflowView(workflow);
      const inactive: Workflow = { ...workflow, state: 'inactive', triggerTokenHash: null, updatedAt: this.clock.now() };
      await this.workflows.update(inactive);
      return toWorkflowView(inactive);
    });
  }

  /** A page of the workflow's runs, newest first; `nextCursor` is null on the last page. */
  async listRuns(accountId: number, id: string, query: { limit?: number; cursor?: string } = {}): Promise<{ runs: RunView[]; nextCursor: string | null }> {
    const limit = query.limit ?? RUNS_PAGE.default;
    if (!Number.isInteger(limit) || limit < 1 || limit > RUNS_PAGE.max) throw invalidParameter(`limit must be an integer from 1 to ${RUNS_PAGE.max}`);
    const after = query.cursor === undefined ? undefined : decodeRunCursor(query.cursor);
    await this.find(accountId, id);
    const rows = await this.runs.listByWorkflow(accountId, id, limit + 1, after);
    const page = rows.slice(0, limit);
    return { runs: page.map(toRunView), nextCursor: rows.length > limit ? encodeRunCursor(page[page.length - 1]) : null };
  }

  /** `lock`: held until the unit of work ends, for a change built on what is read (WorkflowRepository.lockById). */
  private async find(accountId: number, id: string, { lock = false } = {}): Promise<Workflow> {
    const workflow = !looksLikeId('wf', id) ? null : lock ? await this.workflows.lockById(accountId, id) : await this.workflows.findById(accountId, id);
    if (!workflow) throw notFound(`workflow ${echoed(id)} not found`);
    return workflow;
  }

  /** Every send_webhook step must name a target of this account, held until the workflow is saved. */
  private async checkTargets(accountId: number, steps: readonly WorkflowStep[]): Promise<void> {
    const known = await this.targets.holdExisting(accountId, targetIdsOf(steps).filter((id) => looksLikeId('tgt', id)));
    steps.forEach((step, i) => {
      if (step.type === 'send_webhook' && !known.has(step.targetId)) {
        throw invalidParameter(`steps[${i}].targetId: no webhook target ${step.targetId} in this account`);
      }
    });
  }
}
