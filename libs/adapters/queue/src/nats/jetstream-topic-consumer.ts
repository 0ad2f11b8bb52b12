import { Consumer, ConsumerMessages, JsMsg } from '@nats-io/jetstream';
import { Clock, ReceivedWork, WorkHandlerFn, WorkOutcome } from '../../../../kernel/src';
import { afterHandlerFailure, describeError, FailureBackoff, failureRetryAt, QueueLogger, runHandler, sleep, warnAtMostEvery } from '../work-items';
import { JetStreamTopology } from './jetstream-topology';
import { NatsLink } from './nats-link';
import { decodeMessage, MAX_ITEMS_PER_MESSAGE } from './work-message';

export interface TopicConsumerOptions {
  topic: string;
  /** Items in flight at most (a message carries up to MAX_ITEMS_PER_MESSAGE). */
  concurrency: number;
  ackWaitMs: number;
  maxAckPending: number;
  /** How long one pull request waits on the server for messages (min 1000). */
  fetchExpiresMs: number;
  failureBackoff: FailureBackoff;
  /** How many more items the handler takes now (ConsumeOptions.spareCapacity). */
  spareCapacity: () => number;
  maxHandlerFailures?: number;
  giveUp?: (work: ReceivedWork, reason: string) => Promise<void>;
  postpone?: (work: ReceivedWork, at: Date) => Promise<void>;
}

/** Messages asked for by one pull request at most: a process takes work in bites others can share. */
const MAX_PULL = 128;
/** How often a consumer whose handler had no capacity looks again, besides each finished message. */
const CAPACITY_RECHECK_MS = 20;

/** Stores the retry as an outbox row due at `at` (the delay lives in SQL, never in a held nak). */
export type ScheduleRetry = (work: ReceivedWork, at: Date) => Promise<void>;

interface InFlight {
  released: boolean;
  working: NodeJS.Timeout;
}

/**
 * Pulls one topic's durable consumer with bounded in-flight work: pull requests only ever ask for
 * free room, counted in items (running + waiting their turn + expected of the messages asked for
 * <= concurrency; a message carries up to MAX_ITEMS_PER_MESSAGE and the expectation follows what
 * recent messages carried). Never more than `concurrency` items run at once: those of a message beyond that wait
 * their turn. A message is acked once each of its items has an outcome (a retry is stored apart,
 * as an outbox row of its own), kept alive with `working()` meanwhile, and on stop nakked (without
 * delay) if unfinished: redelivered, its finished items are no-ops for a handler that checks its
 * work is still current (at-least-once).
 */
export class JetStreamTopicConsumer {
  private readonly inFlight = new Map<JsMsg, InFlight>();
  /** Items whose handler runs now (never more than `concurrency`). */
  private running = 0;
  /** Items waiting for a turn to run, first come first served. */
  private readonly turns: Array<() => void> = [];
  private readonly fetches = new Set<ConsumerMessages>();
  private readonly fetchTasks = new Set<Promise<void>>();
  private readonly stopSignal = new AbortController();
  /** Room kept for the messages asked for and not yet received, in items. */
  private reserved = 0;
  /** Items per message lately (a moving average), the room kept per message asked for. */
  private itemsPerMessage = 1;
  private reattach = false;
  private changed: () => void = () => undefined;
  private loop: Promise<void> | null = null;
  private stopped: Promise<void> | null = null;
  private failing = false;
  private readonly unsubscribeReconnect: () => void;

  constructor(
    private readonly link: NatsLink,
    private readonly topology: JetStreamTopology,
    private readonly handler: WorkHandlerFn,
    private readonly scheduleRetry: ScheduleRetry,
    private readonly clock: Clock,
    private readonly options: TopicConsumerOptions,
    private readonly logger: QueueLogger,
  ) {
    this.unsubscribeReconnect = link.onReconnect(() => this.closeFetches());
  }

  start(): void {
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    const stop = this.stopSignal.signal;
    while (!stop.aborted) {
      const consumer = await this.attach();
      if (!consumer) return;
      this.reattach = false;
      await this.pull(consumer);
    }
  }

  /** Waits for NATS, makes sure the durable exists, binds to it. Null once stopping. */
  private async attach(): Promise<Consumer | null> {
    const { topic, ackWaitMs, maxAckPending } = this.options;
    const stop = this.stopSignal.signal;
    while (!stop.aborted) {
      const handles = await this.link.whenUp(stop);
      if (!handles) return null;
      try {
        await this.topology.ensureConsumer(handles.jsm, topic, { ackWaitMs, maxAckPending });
        return await handles.js.consumers.get(this.topology.stream, this.topology.durable(topic));
      } catch (error) {
        this.noteFailure('binding the consumer', error);
        await sleep(1_000, stop);
      }
    }
    return null;
  }

  private async pull(consumer: Consumer): Promise<void> {
    const { concurrency } = this.options;
    // Asking for a handful of messages at a time keeps pull requests few while work flows.
    while (!this.stopSignal.signal.aborted && !this.reattach) {
      const unit = Math.min(Math.max(1, Math.round(this.itemsPerMessage)), MAX_ITEMS_PER_MESSAGE);
      const refill = Math.max(1, Math.ceil(concurrency / unit / 4));
      const free = Math.min(messagesFor(concurrency - this.running - this.turns.length - this.reserved, unit, this.fetches.size), MAX_PULL);
      if (free <= 0 || (this.fetches.size > 0 && free < Math.min(refill, MAX_PULL))) {
        await this.nextChange();
        continue;
      }
      const wanted = Math.min(free, messagesFor(this.options.spareCapacity() - this.reserved, unit, this.fetches.size));
      if (wanted <= 0) {
        await this.nextChangeWithin(CAPACITY_RECHECK_MS);
        continue;
      }
      this.reserved += wanted * unit;
      const task = this.fetch(consumer, wanted, unit).finally(() => {
        this.fetchTasks.delete(task);
        this.notify();
      });
      this.fetchTasks.add(task);
    }
  }

  private async fetch(consumer: Consumer, count: number, unit: number): Promise<void> {
    let received = 0;
    let messages: ConsumerMessages | null = null;
    const startedAt = Date.now();
    try {
      messages = await consumer.fetch({ max_messages: count, expires: this.options.fetchExpiresMs });
      this.fetches.add(messages);
      for await (const msg of messages) {
        received++;
        this.reserved -= unit;
        if (this.stopSignal.signal.aborted) safely(() => msg.nak());
        else this.handle(msg);
      }
      this.noteRecovered();
      // A pull the server ends at once with nothing (e.g. max_ack_pending reached) must not spin.
      if (received === 0 && Date.now() - startedAt < 200) await sleep(250, this.stopSignal.signal);
    } catch (error) {
      this.noteFailure('pulling', error);
      this.reattach = true;
      await sleep(1_000, this.stopSignal.signal);
    } finally {
      if (messages) this.fetches.delete(messages);
      this.reserved -= (count - received) * unit;
    }
  }

  private handle(msg: JsMsg): void {
    const entry: InFlight = {
      released: false,
      working: setInterval(() => safely(() => msg.working()), Math.max(Math.floor(this.options.ackWaitMs / 3), 100)),
    };
    this.inFlight.set(msg, entry);
    void this.process(msg, entry).finally(() => {
      clearInterval(entry.working);
      this.inFlight.delete(msg);
      this.notify();
    });
  }

  private async process(msg: JsMsg, entry: InFlight): Promise<void> {
    let works: ReceivedWork[];
    try {
      works = this.toWorks(msg);
    } catch (error) {
      this.logger.error(`work queue ${this.options.topic}: dropped unreadable message ${msg.seq}: ${describeError(error)}`);
      safely(() => msg.ack());
      return;
    }
    this.itemsPerMessage += (works.length - this.itemsPerMessage) / 8;
    const settled = await Promise.all(
      works.map(async (work) => {
        await this.turn();
        try {
          // Released (stopping) while it waited: the redelivery runs it.
          return entry.released ? false : await this.settle(work, entry);
        } finally {
          this.endTurn();
          this.notify();
        }
      }),
    );
    // An item whose retry could not be stored leaves the message unacked: JetStream hands it out
    // again after the ack wait, and the items already done are no-ops then.
    if (!entry.released && settled.every(Boolean)) safely(() => msg.ack());
  }

  /** Waits until fewer than `concurrency` items run (a message may carry more than the room left). */
  private turn(): Promise<void> {
    if (this.running < this.options.concurrency) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.turns.push(resolve));
  }

  private endTurn(): void {
    const next = this.turns.shift();
    if (next) next();
    else this.running--;
  }

  /** Runs one item and stores its retry if it asks for one; false if that could not be stored. */
  private async settle(work: ReceivedWork, entry: InFlight): Promise<boolean> {
    const { outcome, failed } = await runHandler(
      () => this.handler(work),
      (error) => this.afterHandlerFailure(work, error),
    );
    if (entry.released) return false;
    if (outcome.kind === 'retry') {
      try {
        await this.scheduleRetry(failed ? { ...work, failures: work.failures + 1 } : work, outcome.at);
      } catch (error) {
        warnAtMostEvery(this.logger, { msg: 'work item retry could not be stored, it returns after the ack wait', topic: work.topic, workId: work.id, reason: describeError(error) });
        return false;
      }
    }
    if (outcome.kind === 'drop') this.logger.warn({ msg: 'work item dropped', topic: work.topic, workId: work.id, reason: outcome.reason });
    return true;
  }

  private afterHandlerFailure(work: ReceivedWork, error: unknown): Promise<WorkOutcome> {
    const { maxHandlerFailures, giveUp, postpone, topic } = this.options;
    return afterHandlerFailure(work, error, {
      maxHandlerFailures,
      giveUp: giveUp && ((reason) => giveUp(work, reason)),
      postpone: postpone && ((at) => postpone(work, at)),
      retryAt: () => failureRetryAt(this.clock.nowMs(), work.deliveryCount, this.options.failureBackoff),
      logger: this.logger,
      where: { topic },
    });
  }

  private toWorks(msg: JsMsg): ReceivedWork[] {
    const { topic } = this.options;
    const redeliveries = msg.info.deliveryCount;
    return decodeMessage(msg.string()).map(({ id, prior, failures, payload }) => ({ id, topic, payload, deliveryCount: prior + redeliveries, failures }));
  }

  /** Stops pulling, waits up to graceMs for work in hand, naks the rest for immediate redelivery. */
  stop(graceMs = 0): Promise<void> {
    this.stopped ??= this.shutdown(graceMs);
    return this.stopped;
  }

  private async shutdown(graceMs: number): Promise<void> {
    this.stopSignal.abort();
    this.unsubscribeReconnect();
    this.closeFetches();
    this.notify();
    await this.loop;
    await Promise.all([...this.fetchTasks]);
    const deadline = Date.now() + graceMs;
    while (this.inFlight.size > 0 && Date.now() < deadline) {
      await this.nextChangeWithin(deadline - Date.now());
    }
    for (const [msg, entry] of this.inFlight) {
      entry.released = true;
      clearInterval(entry.working);
      safely(() => msg.nak());
    }
    this.inFlight.clear();
  }

  private closeFetches(): void {
    for (const messages of this.fetches) void messages.close().catch(() => undefined);
  }

  private nextChange(): Promise<void> {
    return new Promise((resolve) => {
      const previous = this.changed;
      this.changed = () => {
        previous();
        resolve();
      };
    });
  }

  /**
   * The next change, or `ms` later: the timer ends with the wait, so a loop that wakes on changes
   * never leaves timers (or abort listeners) piling up behind it. Stopping is a change (shutdown notifies).
   */
  private nextChangeWithin(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
    return Promise.race([this.nextChange(), timeout]).finally(() => clearTimeout(timer));
  }

  private notify(): void {
    const changed = this.changed;
    this.changed = () => undefined;
    changed();
  }

  private noteFailure(what: string, error: unknown): void {
    if (this.stopSignal.signal.aborted || this.failing) return;
    this.failing = true;
    this.logger.warn(`work queue ${this.options.topic}: ${what} failed, retrying: ${describeError(error)}`);
  }

  private noteRecovered(): void {
    if (!this.failing) return;
    this.failing = false;
    this.logger.log(`work queue ${this.options.topic}: pulling works again`);
  }
}

/**
 * Messages to ask for with `room` items free, `unit` items expected of each. With less room than
 * one unit and no pull under way, one message still, or a little room would never be filled.
 */
function messagesFor(room: number, unit: number, pullsUnderWay: number): number {
  if (room <= 0) return 0;
  return Math.max(Math.floor(room / unit), pullsUnderWay === 0 ? 1 : 0);
}

/** Acks and friends throw once the connection is closed; the server redelivers anyway. */
function safely(action: () => void): void {
  try {
    action();
  } catch {
    // nothing to do: the message comes back after the ack wait
  }
}
