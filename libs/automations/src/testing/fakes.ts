import { rescheduledWork, seqUnchanged } from '../../../kernel/src';
import { TargetUsage } from '../../../webhook-targets/src';
import { copy } from '../../../webhook-targets/src/testing/fakes';
import { RunRepository, ScheduledRun, WorkflowRepository } from '../automations.repository';
import { Run } from '../run';
import type { RunPosition } from '../run-cursor';
import { targetIdsOf, Workflow } from '../workflow';

export class InMemoryWorkflowRepository extends WorkflowRepository {
  readonly rows = new Map<string, Workflow>();
  async insert(workflow: Workflow) {
    this.rows.set(workflow.id, copy(workflow));
  }
  async update(workflow: Workflow) {
    if (this.rows.get(workflow.id)?.accountId === workflow.accountId) this.rows.set(workflow.id, copy(workflow));
  }
  async findById(accountId: number, id: string) {
    const row = this.rows.get(id);
    return row && row.accountId === accountId ? copy(row) : null;
  }
  lockById(accountId: number, id: string) {
    return this.findById(accountId, id);
  }
  async listByAccount(accountId: number, afterId: string | null, limit: number) {
    return [...this.rows.values()]
      .filter((w) => w.accountId === accountId && (afterId === null || w.id > afterId))
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .slice(0, limit)
      .map(copy);
  }
  async countByAccount(accountId: number) {
    return [...this.rows.values()].filter((w) => w.accountId === accountId).length;
  }
  async delete(accountId: number, id: string) {
    if (this.rows.get(id)?.accountId !== accountId) return false;
    return this.rows.delete(id);
  }
  async findActiveByTriggerTokenHashes(tokenHashes: string[]) {
    return tokenHashes.map((tokenHash) => {
      const row = [...this.rows.values()].find((w) => w.state === 'active' && w.triggerTokenHash === tokenHash);
      return row ? copy(row) : null;
    });
  }
}

/** TargetUsage answered from the workflows the fake holds, as the SQL adapter does. */
export class WorkflowTargetUsage extends TargetUsage {
  constructor(private readonly workflows: InMemoryWorkflowRepository) {
    super();
  }
  async workflowsUsing(accountId: number, targetId: string) {
    return [...this.workflows.rows.values()]
      .filter((w) => w.accountId === accountId && targetIdsOf(w.steps).includes(targetId))
      .map((w) => ({ id: w.id, name: w.name }));
  }
}

export class InMemoryRunRepository extends RunRepository {
  readonly rows = new Map<string, Run>();
  async insertMany(runs: Run[]) {
    for (const run of runs) {
      if (this.rows.has(run.id)) throw new Error(`duplicate run id ${run.id}`);
      this.rows.set(run.id, copy(run));
    }
  }
  async findById(id: string) {
    const row = this.rows.get(id);
    return row ? copy(row) : null;
  }
  async saveProgress(run: Run, expectedSeq: number) {
    const row = this.rows.get(run.id);
    if (!row || !seqUnchanged(row.seq, expectedSeq)) return false;
    this.rows.set(run.id, copy(run));
    return true;
  }
  async rescheduleStale(staleBefore: Date, now: Date, limit: number): Promise<ScheduledRun[]> {
    const rows = [...this.rows.values()]
      .filter((r) => r.status === 'running' && r.nextAt !== null && r.nextAt < staleBefore)
      .sort((a, b) => a.nextAt!.getTime() - b.nextAt!.getTime())
      .slice(0, limit);
    return rescheduledWork(rows, now).map(({ id, seq, at }) => {
      Object.assign(this.rows.get(id)!, { nextAt: new Date(at.getTime()), seq });
      return { id, seq, nextAt: new Date(at.getTime()) };
    });
  }
  async listByWorkflow(accountId: number, workflowId: string, limit: number, after?: RunPosition) {
    const comesAfter = (r: Run) => !after || r.startedAt.getTime() < after.startedAt.getTime() || (r.startedAt.getTime() === after.startedAt.getTime() && r.id < after.id);
    return [...this.rows.values()]
      .filter((r) => r.accountId === accountId && r.workflowId === workflowId && comesAfter(r))
      .sort((a, b) => b.startedAt.getTime() - a.startedAt.getTime() || (a.id < b.id ? 1 : -1))
      .slice(0, limit)
      .map(copy);
  }
  async postpone(id: string, seq: number, at: Date) {
    const row = this.rows.get(id);
    if (row && row.seq === seq && row.status === 'running') row.nextAt = new Date(at.getTime());
  }
  async deleteByWorkflow(accountId: number, workflowId: string) {
    for (const [id, run] of this.rows) if (run.accountId === accountId && run.workflowId === workflowId) this.rows.delete(id);
  }

  async deleteStartedBefore(cutoff: Date, limit: number) {
    const doomed = [...this.rows.values()].filter((r) => r.startedAt < cutoff && r.status !== 'running').sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime()).slice(0, limit);
    for (const run of doomed) this.rows.delete(run.id);
    return doomed.length;
  }

}
