/**
 * The queue port: durable, at-least-once work items. Items enqueued inside a UnitOfWork are
 * stored in the same transaction (outbox) and reach workers only once it has committed.
 */
export interface WorkItem {
  /** 1-64 of A-Z a-z 0-9 _ - (topics name NATS subjects and durable consumers too): `webhook-delivery`. */
  topic: string;
  /** Small JSON object naming the work, e.g. `{ deliveryId }`; the database holds the truth. */
  payload: Record<string, unknown>;
  /** Not before this time; absent means now. */
  runAt?: Date;
  /** Optional dedup key: enqueuing the same key twice (while the first is waiting) stores it once. */
  key?: string;
  /**
   * The enqueuer's own record brings this item back if it is lost (a sweeper re-queues what has
   * waited unclaimed past its due time). A queue whose store is not the caller's database may then
   * hand a due item over right after commit without keeping a durable copy of its own, and keep one
   * only when that hand-over fails; a crash in between costs the sweeper's delay, not the item.
   */
  sweptBackIfLost?: boolean;
}

export interface ReceivedWork {
  id: string;
  topic: string;
  payload: Record<string, unknown>;
  /** 1 on the first hand-over; more after a crash, lease expiry or retry. */
  deliveryCount: number;
  /** Times a handler threw on this item so far. */
  failures: number;
}

export type WorkOutcome =
  | { kind: 'done' }
  | { kind: 'retry'; at: Date }
  | { kind: 'drop'; reason: string };

export type WorkHandlerFn = (work: ReceivedWork) => Promise<WorkOutcome>;

export interface ConsumeOptions {
  /** Items in flight at once in this process for this topic (backpressure). */
  concurrency: number;
  /**
   * Asked before taking more items: how many more the handler can start soon (0 while it has
   * enough in hand, so that one process does not hoard what another could run). Asked again as
   * items finish. Unlimited when absent.
   */
  spareCapacity?: () => number;
  /**
   * After this many handler exceptions on one item it is dead: `giveUp` is called (to fail the
   * delivery or run it names) and the item is removed. Retried forever when absent.
   */
  maxHandlerFailures?: number;
  giveUp?: (work: ReceivedWork, reason: string) => Promise<void>;
  /**
   * The handler threw and the item is offered again at `at` (its failure count kept): the work it
   * names is due then, not before, so that no sweeper takes it for lost and starts it over with a
   * fresh count. Best effort: a failure here is logged, the retry stands.
   */
  postpone?: (work: ReceivedWork, at: Date) => Promise<void>;
}

export interface WorkSubscription {
  /** Stops taking new items, waits for in-flight ones up to the grace period, releases the rest. */
  stop(graceMs?: number): Promise<void>;
}

/** What waits in a queue's store for one topic: items (due, delayed or held) and the oldest due time. */
export interface TopicBacklog {
  topic: string;
  items: number;
  /** The earliest time an item became (or becomes) due; null when there are none. */
  oldestDueAt: Date | null;
}

export interface QueueBacklog {
  /** Where the items wait (`work_items`, or `outbox` before NATS takes them). */
  store: string;
  topics: TopicBacklog[];
}

export abstract class WorkQueue {
  abstract enqueue(items: WorkItem[]): Promise<void>;
  abstract consume(topic: string, handler: WorkHandlerFn, options: ConsumeOptions): Promise<WorkSubscription>;
  /** Throws when the queue cannot be reached (readiness). */
  abstract ping(): Promise<void>;
  /** The items it holds by topic, for the operators' gauges. */
  abstract backlog(): Promise<QueueBacklog>;
  /**
   * The earliest due time of an item of `topic` not yet handed to a worker (null when there is
   * none): every item due before it has left the queue. The sweepers take work for lost only when
   * it was due before this too, never while its item may still be waiting behind a backlog.
   */
  abstract oldestWaiting(topic: string): Promise<Date | null>;
}
