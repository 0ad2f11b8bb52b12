import { ConsumeOptions, QueueBacklog, WorkHandlerFn, WorkItem, WorkQueue, WorkSubscription } from '../../../kernel/src';
import { backlogOf, ImmediateUnitOfWork } from '../../../kernel/src/testing/kernel-fakes';

export { ImmediateUnitOfWork, ManualClock, ScriptedOutboundHttp } from '../../../kernel/src/testing/kernel-fakes';
export { InMemoryAccountRepository } from '../../../accounts/src/testing/in-memory-accounts';

/** Keeps enqueued items (deduplicated by key) for the test to hand to a handler. */
export class InMemoryWorkQueue extends WorkQueue {
  readonly items: WorkItem[] = [];
  /** Whether each enqueue call happened inside a unit of work. */
  readonly enqueuedInTransaction: boolean[] = [];

  constructor(private readonly uow?: ImmediateUnitOfWork) {
    super();
  }

  async enqueue(items: WorkItem[]) {
    this.enqueuedInTransaction.push(this.uow?.inTransaction() ?? false);
    for (const item of items) {
      if (item.key && this.items.some((i) => i.key === item.key)) continue;
      this.items.push(structuredClone(item));
    }
  }
  async consume(_topic: string, _handler: WorkHandlerFn, _options: ConsumeOptions): Promise<WorkSubscription> {
    return { stop: async () => undefined };
  }
  async ping() {}
  async backlog(): Promise<QueueBacklog> {
    return backlogOf('memory', this.items, () => new Date());
  }

  /** Removes and returns the items of a topic, oldest first. */
  take(topic: string): WorkItem[] {
    const taken = this.items.filter((i) => i.topic === topic);
    this.items.splice(0, this.items.length, ...this.items.filter((i) => i.topic !== topic));
    return taken;
  }
}
