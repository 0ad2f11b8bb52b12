import { AsyncLocalStorage } from 'node:async_hooks';
import { Clock } from '../clock';
import { JobLease } from '../job-lease';
import { OutboundHttp, OutboundRequest, OutboundResult } from '../outbound-http';
import { UnitOfWork, UnitOfWorkOptions } from '../unit-of-work';
import { ConsumeOptions, QueueBacklog, TopicBacklog, WorkHandlerFn, WorkItem, WorkQueue, WorkSubscription } from '../work-queue';

/** In-memory fakes of the kernel ports, the one set every lib's unit tests use. */

/** A clock that moves only when the test says so. */
export class ManualClock extends Clock {
  constructor(private current = new Date('2025-11-22T02:00:00.000Z')) {
    super();
  }
  now(): Date {
    return new Date(this.current.getTime());
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
  set(at: Date | string): void {
    this.current = new Date(at);
  }
}

/** A fake store that can be rolled back with the unit of work that changed it. */
export interface Snapshotting {
  /** Returns what restores the store to now. */
  snapshot(): () => void;
}

/**
 * A unit of work as a database transaction behaves for the code above it: runs take turns (one
 * at a time, like row locks would make them), a run inside a run joins it, after-commit callbacks
 * run once the outermost run returned, and a run that throws rolls back the stores it was given.
 */
export class InMemoryUnitOfWork extends UnitOfWork {
  /** `durable` of each outermost run (one per transaction), in order (default true). */
  readonly durability: boolean[] = [];
  private tail: Promise<unknown> = Promise.resolve();
  private readonly context = new AsyncLocalStorage<Array<() => void | Promise<void>>>();

  constructor(private readonly stores: Snapshotting[] = []) {
    super();
  }

  /** Outermost runs so far. */
  get runs(): number {
    return this.durability.length;
  }

  run<T>(work: () => Promise<T>, options?: UnitOfWorkOptions): Promise<T> {
    if (this.context.getStore()) return work();
    const result = this.tail.then(async () => {
      this.durability.push(options?.durable ?? true);
      const restores = this.stores.map((s) => s.snapshot());
      const callbacks: Array<() => void | Promise<void>> = [];
      try {
        const value = await this.context.run(callbacks, work);
        for (const callback of callbacks) await callback();
        return value;
      } catch (error) {
        restores.forEach((restore) => restore());
        throw error;
      }
    });
    this.tail = result.catch(() => undefined);
    return result;
  }

  afterCommit(callback: () => void | Promise<void>): void {
    const callbacks = this.context.getStore();
    if (callbacks) callbacks.push(callback);
    else void callback();
  }

  inTransaction(): boolean {
    return this.context.getStore() !== undefined;
  }
}

/**
 * Records every request and answers from a script of results (the last one repeats), or from
 * `respond` when the test sets it.
 */
export class ScriptedOutboundHttp extends OutboundHttp {
  readonly userAgent = 'WebhookServer/test';
  readonly requests: OutboundRequest[] = [];
  respond: (request: OutboundRequest) => Partial<OutboundResult>;

  constructor(script: Array<Partial<OutboundResult>> = [{ status: 200 }]) {
    super();
    this.respond = () => (script.length > 1 ? script.shift()! : script[0]);
  }

  sentHeaders(request: OutboundRequest): Record<string, string> {
    return { host: new URL(request.url).host, ...request.headers, 'user-agent': this.userAgent };
  }

  async post(request: OutboundRequest): Promise<OutboundResult> {
    this.requests.push(structuredClone(request));
    return { status: null, durationMs: 3, body: '', error: null, ...this.respond(request) };
  }
}

/** Keeps enqueued items (deduplicated by key, as the real queues do) for the test to hand to a handler. */
export class InMemoryWorkQueue extends WorkQueue {
  readonly items: WorkItem[] = [];
  /** Whether each enqueue call happened inside a unit of work. */
  readonly enqueuedInTransaction: boolean[] = [];
  private readonly enqueuedAt = new WeakMap<WorkItem, Date>();

  constructor(
    private readonly uow?: UnitOfWork,
    private readonly clock?: Clock,
  ) {
    super();
  }

  async enqueue(items: WorkItem[]) {
    this.enqueuedInTransaction.push(this.uow?.inTransaction() ?? false);
    for (const item of items) {
      if (item.key && this.items.some((i) => i.key === item.key)) continue;
      const kept = structuredClone(item);
      this.enqueuedAt.set(kept, this.clock?.now() ?? new Date());
      this.items.push(kept);
    }
  }
  async consume(_topic: string, _handler: WorkHandlerFn, _options: ConsumeOptions): Promise<WorkSubscription> {
    return { stop: async () => undefined };
  }
  async ping() {}

  /** Every item waits here, due or not: all of them count, due at their runAt (or now). */
  async backlog(): Promise<QueueBacklog> {
    const topics = new Map<string, TopicBacklog>();
    for (const item of this.items) {
      const due = item.runAt ?? new Date();
      const topic = topics.get(item.topic) ?? { topic: item.topic, items: 0, oldestDueAt: null };
      topic.items++;
      if (topic.oldestDueAt === null || due < topic.oldestDueAt) topic.oldestDueAt = due;
      topics.set(item.topic, topic);
    }
    return { store: 'memory', topics: [...topics.values()] };
  }

  /** Every item waits here until the test takes it: the earliest due of the topic's (an item due at once counts as due when enqueued). */
  async oldestWaiting(topic: string): Promise<Date | null> {
    const dues = this.items.filter((i) => i.topic === topic).map((i) => (i.runAt ?? this.enqueuedAt.get(i) ?? new Date()).getTime());
    return dues.length === 0 ? null : new Date(Math.min(...dues));
  }

  /** Removes and returns the items of a topic, oldest first. */
  take(topic: string): WorkItem[] {
    const taken = this.items.filter((i) => i.topic === topic);
    this.items.splice(0, this.items.length, ...this.items.filter((i) => i.topic !== topic));
    return taken;
  }

  /** Removes and returns the item due first. */
  takeNext(): WorkItem | undefined {
    if (this.items.length === 0) return undefined;
    const due = (i: WorkItem) => i.runAt?.getTime() ?? 0;
    let best = 0;
    this.items.forEach((item, i) => {
      if (due(item) < due(this.items[best])) best = i;
    });
    return this.items.splice(best, 1)[0];
  }
}

export class InMemoryJobLease extends JobLease {
  readonly leases = new Map<string, { holder: string; expiresAt: number }>();

  async acquire(name: string, holder: string, now: Date, ttlMs: number): Promise<boolean> {
    const current = this.leases.get(name);
    if (current && current.holder !== holder && current.expiresAt > now.getTime()) return false;
    this.leases.set(name, { holder, expiresAt: now.getTime() + ttlMs });
    return true;
  }

  async release(name: string, holder: string): Promise<void> {
    if (this.leases.get(name)?.holder === holder) this.leases.delete(name);
  }
}
