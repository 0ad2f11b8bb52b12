import { Batcher, Clock, WorkOutcome } from '../../../kernel/src';
import { ClaimedRow, LeasedRows, Reschedule } from './leased-rows';
import { afterHandlerFailure, describeError, QueueLogger, runHandler, warnAtMostEvery } from './work-items';

export interface LeasedRowWorkerOptions {
  /** Rows of this topic only; null takes every topic (the outbox relay). */
  topic: string | null;
  /** Rows held at once; only free slots are claimed. */
  concurrency: number;
  leaseMs: number;
  /** Look for due rows this often (other processes' work, delayed rows, expired leases). */
  pollIntervalMs: number;
  /** When a row whose handler threw is offered again. */
  retryAfterFailure(row: ClaimedRow, nowMs: number): Date;
  /** After this many handler exceptions the row is dead: `giveUp` is told, then the row is removed. */
  maxHandlerFailures?: number;
  giveUp?: (row: ClaimedRow, reason: string) => Promise<void>;
  postpone?: (row: ClaimedRow, at: Date) => Promise<void>;
  /** While false, nothing is claimed and rows simply wait (the relay while NATS is down). */
  canClaim?: () => boolean;
  /** Rows the handler can start soon (ConsumeOptions.spareCapacity); unlimited when absent. */
  spareCapacity?: () => number;
  /** Names the loop in log lines. */
  label: string;
}

interface Held {
  row: ClaimedRow;
  released: boolean;
}

/** Rows claimed by one statement at most. */
const MAX_CLAIM = 256;
/** Outcomes applied by one statement at most. */
const MAX_SETTLE = 512;

/**
 * Runs a handler over leased rows of one table: claims only free slots, renews the leases of
 * rows in hand every leaseMs/3, applies the outcome under the lease token, and on stop gives
 * back what is still running. Woken at once by `wake()` (same-process enqueue) and by a poll.
 */
export class LeasedRowWorker {
  private readonly held = new Map<string, Held>();
  private readonly idleWaiters = new Set<() => void>();
  private pollTimer: NodeJS.Timeout | null = null;
  private renewTimer: NodeJS.Timeout | null = null;
  private pumping: Promise<void> | null = null;
  private wakeAgain = false;
  private stopping = false;
  private stopped: Promise<void> | null = null;
  private failing = false;
  /** Rows done (acked) together: one DELETE for all outcomes that arrive at about the same time. */
  private readonly completions: Batcher<ClaimedRow, boolean>;
  /** Retries asked for at about the same time share one UPDATE (a backlog sent back to the queue comes in hundreds). */
  private readonly reschedules: Batcher<Reschedule, boolean>;

  constructor(
    private readonly rows: LeasedRows,
    private readonly clock: Clock,
    private readonly handler: (row: ClaimedRow) => Promise<WorkOutcome>,
    private readonly options: LeasedRowWorkerOptions,
    private readonly logger: QueueLogger,
  ) {
    this.completions = new Batcher(async (done) => {
      const kept = await this.rows.completeMany(done);
      return done.map((row) => kept.has(row.id));
    }, { maxSize: MAX_SETTLE });
    this.reschedules = new Batcher(async (asked) => {
      const kept = await this.rows.rescheduleMany(asked);
      return asked.map((r) => kept.has(r.id));
    }, { maxSize: MAX_SETTLE });
  }

  start(): void {
    this.pollTimer = setInterval(() => this.wake(), this.options.pollIntervalMs);
    this.renewTimer = setInterval(() => void this.renew(), Math.max(Math.floor(this.options.leaseMs / 3), 1));
    this.wake();
  }

  wake(): void {
    if (this.stopping) return;
    if (this.pumping) {
      this.wakeAgain = true;
      return;
    }
    this.pumping = this.pump().finally(() => {
      this.pumping = null;
      // A wake that came after the pump's last look must not wait for the next poll.
      if (this.wakeAgain) this.wake();
    });
  }

  private async pump(): Promise<void> {
    do {
      this.wakeAgain = false;
      try {
        await this.claimFreeSlots();
        this.noteRecovered();
      } catch (error) {
        this.noteFailure('claim', error);
        return;
      }
    } while (this.wakeAgain && !this.stopping);
  }

  private async claimFreeSlots(): Promise<void> {
    const { topic, concurrency, leaseMs, canClaim, spareCapacity } = this.options;
    for (;;) {
      const free = Math.min(concurrency - this.held.size, spareCapacity ? spareCapacity() : Infinity);
      if (this.stopping || free <= 0 || (canClaim && !canClaim())) return;
      const now = this.clock.nowMs();
      if (!(await this.rows.hasDue(topic, now))) return;
      const wanted = Math.min(free, MAX_CLAIM);
      const claimed = await this.rows.claim(topic, wanted, now, leaseMs);
      for (const row of claimed) this.run(row);
      if (claimed.length < wanted) return;
    }
  }

  private run(row: ClaimedRow): void {
    if (this.stopping) {
      // Claimed while stop() was starting: give it straight back.
      this.rows.release([row.id], row.token, this.clock.nowMs()).catch(() => undefined);
      return;
    }
    const entry: Held = { row, released: false };
    this.held.set(row.id, entry);
    void this.handle(entry).finally(() => {
      if (this.held.get(row.id) === entry) this.held.delete(row.id);
      if (this.held.size === 0) for (const resolve of this.idleWaiters) resolve();
      this.wake();
    });
  }

  private async handle(entry: Held): Promise<void> {
    const { row } = entry;
    const { outcome, failed } = await runHandler(
      () => this.handler(row),
      (error) => this.afterHandlerFailure(row, error),
    );
    if (entry.released) return;
    try {
      const kept =
        outcome.kind === 'retry' ? await this.reschedules.submit({ id: row.id, token: row.token, atMs: outcome.at.getTime(), failed }) : await this.completions.submit(row);
      if (outcome.kind === 'drop') this.logger.warn({ msg: 'work item dropped', queue: this.options.label, workId: row.id, reason: outcome.reason });
      if (!kept) this.logger.warn({ msg: 'work item lease expired before its outcome; it may run twice', queue: this.options.label, workId: row.id, outcome: outcome.kind });
    } catch (error) {
      // The lease runs out and the row is taken again: at-least-once.
      warnAtMostEvery(this.logger, { msg: 'work item outcome could not be recorded', queue: this.options.label, workId: row.id, outcome: outcome.kind, reason: describeError(error) });
    }
  }

  private afterHandlerFailure(row: ClaimedRow, error: unknown): Promise<WorkOutcome> {
    const { maxHandlerFailures, giveUp, postpone, label } = this.options;
    return afterHandlerFailure(row, error, {
      maxHandlerFailures,
      giveUp: giveUp && ((reason) => giveUp(row, reason)),
      postpone: postpone && ((at) => postpone(row, at)),
      retryAt: () => this.options.retryAfterFailure(row, this.clock.nowMs()),
      logger: this.logger,
      where: { queue: label },
    });
  }

  private async renew(): Promise<void> {
    const until = this.clock.nowMs() + this.options.leaseMs;
    for (const [token, ids] of this.byToken()) {
      try {
        await this.rows.renew(ids, token, until);
      } catch (error) {
        this.noteFailure('lease renewal', error);
      }
    }
  }

  /** Stops claiming, waits up to graceMs for rows in hand, then releases the rest. */
  stop(graceMs = 0): Promise<void> {
    this.stopped ??= this.shutdown(graceMs);
    return this.stopped;
  }

  private async shutdown(graceMs: number): Promise<void> {
    this.stopping = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    await this.pumping;
    if (this.held.size > 0 && graceMs > 0) {
      let resolveIdle!: () => void;
      const idle = new Promise<void>((resolve) => (resolveIdle = resolve));
      this.idleWaiters.add(resolveIdle);
      const timer = setTimeout(resolveIdle, graceMs);
      await idle;
      clearTimeout(timer);
      this.idleWaiters.delete(resolveIdle);
    }
    await this.releaseAll();
    if (this.renewTimer) clearInterval(this.renewTimer);
  }

  private async releaseAll(): Promise<void> {
    const now = this.clock.nowMs();
    const groups = this.byToken();
    for (const entry of this.held.values()) entry.released = true;
    this.held.clear();
    for (const [token, ids] of groups) {
      try {
        await this.rows.release(ids, token, now);
      } catch (error) {
        this.logger.warn(`${this.options.label}: could not release ${ids.length} item(s), they return when the lease expires: ${describeError(error)}`);
      }
    }
  }

  private byToken(): Map<string, string[]> {
    const groups = new Map<string, string[]>();
    for (const { row, released } of this.held.values()) {
      if (released) continue;
      const ids = groups.get(row.token) ?? [];
      ids.push(row.id);
      groups.set(row.token, ids);
    }
    return groups;
  }

  /** One line when the database starts failing and one when it answers again, not one per poll. */
  private noteFailure(what: string, error: unknown): void {
    if (this.failing) return;
    this.failing = true;
    this.logger.warn(`${this.options.label}: ${what} failed, retrying every ${this.options.pollIntervalMs} ms: ${describeError(error)}`);
  }

  private noteRecovered(): void {
    if (!this.failing) return;
    this.failing = false;
    this.logger.log(`${this.options.label}: claiming works again`);
  }
}
