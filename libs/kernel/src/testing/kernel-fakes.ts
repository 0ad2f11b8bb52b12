import { Clock } from '../clock';
import { OutboundHttp, OutboundRequest, OutboundResult } from '../outbound-http';
import { UnitOfWork } from '../unit-of-work';
import type { QueueBacklog, TopicBacklog, WorkItem } from '../work-queue';

/** In-memory fakes of the kernel ports, shared by every lib's unit tests. */

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
  afterCommit(callback: () => void | Promise<void>): void {
    if (this.depth > 0) this.callbacks.push(callback);
    else void callback();
  }
  inTransaction(): boolean {
    return this.depth > 0;
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

  async post(request: OutboundRequest): Promise<OutboundResult> {
    this.requests.push(structuredClone(request));
    return { status: null, durationMs: 3, body: '', error: null, ...this.respond(request) };
  }
}

/** The backlog of a fake queue's items (a fake holds them all, due or not). */
export function backlogOf(store: string, items: readonly WorkItem[], now: () => Date): QueueBacklog {
  const topics = new Map<string, TopicBacklog>();
  for (const item of items) {
    const due = item.runAt ?? now();
    const topic = topics.get(item.topic) ?? { topic: item.topic, items: 0, oldestDueAt: null };
    topic.items++;
    if (topic.oldestDueAt === null || due < topic.oldestDueAt) topic.oldestDueAt = due;
    topics.set(item.topic, topic);
  }
  return { store, topics: [...topics.values()] };
}
