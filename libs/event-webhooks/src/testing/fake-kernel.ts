import { Account, AccountRepository } from '../../../accounts/src';
import {
  Clock,
  ConsumeOptions,
  OutboundHttp,
  OutboundRequest,
  OutboundResult,
  UnitOfWork,
  WorkHandlerFn,
  WorkItem,
  WorkQueue,
  WorkSubscription,
} from '../../../kernel/src';

export class ManualClock extends Clock {
  constructor(private current = new Date('2025-11-22T02:00:00.000Z')) {
    super();
  }
  now() {
    return new Date(this.current);
  }
  advance(ms: number) {
    this.current = new Date(this.current.getTime() + ms);
  }
  set(date: Date) {
    this.current = new Date(date);
  }
}

/** Runs work at once; after-commit callbacks run when the outermost run returns. */
export class ImmediateUnitOfWork extends UnitOfWork {
  private depth = 0;
  private callbacks: Array<() => void | Promise<void>> = [];
  runs = 0;

  async run<T>(work: () => Promise<T>): Promise<T> {
    this.depth++;
    this.runs++;
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
  afterCommit(callback: () => void | Promise<void>) {
    if (this.depth === 0) void callback();
    else this.callbacks.push(callback);
  }
  get inTransaction() {
    return this.depth > 0;
  }
}

/** Keeps enqueued items (deduplicated by key) for the test to hand to a handler. */
export class InMemoryWorkQueue extends WorkQueue {
  readonly items: WorkItem[] = [];
  /** Whether each enqueue call happened inside a unit of work. */
  readonly enqueuedInTransaction: boolean[] = [];

  constructor(private readonly uow?: ImmediateUnitOfWork) {
    super();
  }

  async enqueue(items: WorkItem[]) {
    this.enqueuedInTransaction.push(this.uow?.inTransaction ?? false);
    for (const item of items) {
      if (item.key && this.items.some((i) => i.key === item.key)) continue;
      this.items.push(structuredClone(item));
    }
  }
  async consume(_topic: string, _handler: WorkHandlerFn, _options: ConsumeOptions): Promise<WorkSubscription> {
    return { stop: async () => undefined };
  }
  async ping() {}

  /** Removes and returns the items of a topic, oldest first. */
  take(topic: string): WorkItem[] {
    const taken = this.items.filter((i) => i.topic === topic);
    this.items.splice(0, this.items.length, ...this.items.filter((i) => i.topic !== topic));
    return taken;
  }
}

type Responder = (request: OutboundRequest) => Partial<OutboundResult>;

/** Records every request and answers with the scripted responder (200 by default). */
export class ScriptedOutboundHttp extends OutboundHttp {
  readonly requests: OutboundRequest[] = [];
  respond: Responder = () => ({ status: 200 });

  async post(request: OutboundRequest): Promise<OutboundResult> {
    this.requests.push(structuredClone(request));
    return { status: null, durationMs: 3, body: '', error: null, ...this.respond(request) };
  }
}

export class InMemoryAccountRepository extends AccountRepository {
  readonly rows: Account[] = [];

  async create(name: string, createdAt: Date) {
    const account = { id: this.rows.length + 1, name, createdAt };
    this.rows.push(account);
    return account;
  }
  async findById(id: number) {
    return this.rows.find((a) => a.id === id) ?? null;
  }
}
