import { WebhookTarget } from '../webhook-target';
import { TargetUsage, WebhookTargetRepository } from '../webhook-target.repository';

/** In-memory fakes of the ports the automation libs use, holding state like the real adapters. */

/** Stored rows are copies, as a database would hold them. */
export const copy = <T>(value: T): T => structuredClone(value);

export class InMemoryTargetRepository extends WebhookTargetRepository {
  readonly rows = new Map<string, WebhookTarget>();
  async insert(target: WebhookTarget) {
    this.rows.set(target.id, copy(target));
  }
  async update(target: WebhookTarget) {
    if (this.rows.get(target.id)?.accountId === target.accountId) this.rows.set(target.id, copy(target));
  }
  async findById(accountId: number, id: string) {
    const row = this.rows.get(id);
    return row && row.accountId === accountId ? copy(row) : null;
  }
  lockById(accountId: number, id: string) {
    return this.findById(accountId, id);
  }
  async holdExisting(accountId: number, ids: readonly string[]) {
    return new Set(ids.filter((id) => this.rows.get(id)?.accountId === accountId));
  }
  async listByAccount(accountId: number, afterId: string | null, limit: number) {
    return [...this.rows.values()]
      .filter((t) => t.accountId === accountId && (afterId === null || t.id > afterId))
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .slice(0, limit)
      .map(copy);
  }
  async countByAccount(accountId: number) {
    return [...this.rows.values()].filter((t) => t.accountId === accountId).length;
  }
  async delete(accountId: number, id: string) {
    if (this.rows.get(id)?.accountId !== accountId) return false;
    return this.rows.delete(id);
  }
}

/** Which workflows use which target, set by the test (or by a workflow fake). */
export class InMemoryTargetUsage extends TargetUsage {
  readonly uses: Array<{ accountId: number; targetId: string; workflow: { id: string; name: string } }> = [];
  async workflowsUsing(accountId: number, targetId: string) {
    return this.uses.filter((u) => u.accountId === accountId && u.targetId === targetId).map((u) => u.workflow);
  }
}
