import { Clock, OutboundHttp, OutboundRequest, OutboundResult, UnitOfWork } from '../../../kernel/src';
import { WebhookTarget } from '../webhook-target';
import { TargetUsage, WebhookTargetRepository } from '../webhook-target.repository';

/** In-memory fakes of the ports the automation libs use, holding state like the real adapters. */

export class FixedClock extends Clock {
  constructor(private current = new Date('2025-11-22T02:00:00.000Z')) {
    super();
  }
  now(): Date {
    return new Date(this.current.getTime());
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}

/** Runs work at once; afterCommit callbacks run when the outermost work has finished. */
export class ImmediateUnitOfWork extends UnitOfWork {
  private depth = 0;
  private callbacks: Array<() => void | Promise<void>> = [];
  async run<T>(work: () => Promise<T>): Promise<T> {
    this.depth++;
    try {
      return await work();
    } finally {
      this.depth--;
      if (this.depth === 0) {
        const callbacks = this.callbacks;
        this.callbacks = [];
        for (const callback of callbacks) await callback();
      }
    }
  }
  afterCommit(callback: () => void | Promise<void>): void {
    if (this.depth > 0) this.callbacks.push(callback);
    else void callback();
  }
}

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
  async listByAccount(accountId: number) {
    return [...this.rows.values()].filter((t) => t.accountId === accountId).map(copy);
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

/** Answers from a script of results (the last one repeats) and records every request. */
export class ScriptedOutboundHttp extends OutboundHttp {
  readonly requests: OutboundRequest[] = [];
  constructor(private readonly script: Array<Partial<OutboundResult>> = [{ status: 200 }]) {
    super();
  }
  async post(request: OutboundRequest): Promise<OutboundResult> {
    this.requests.push(request);
    const next = this.script.length > 1 ? this.script.shift()! : this.script[0];
    return { status: null, durationMs: 5, body: '', error: null, ...next };
  }
}
