/**
 * A keyed semaphore with FIFO waiters: at most `capacity(key)` holders per key. Waiting holds
 * nothing, so work queued behind one key never takes a place another key could use.
 */
export class Lanes {
  private readonly lanes = new Map<string, { active: number; waiting: Array<() => void> }>();
  private waiters = 0;

  constructor(private readonly capacity: (key: string) => number) {}

  /** Runs `work` holding a place of `key`. */
  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    await this.acquire(key);
    try {
      return await work();
    } finally {
      this.release(key);
    }
  }

  /** Holders of `key` now (for tests and metrics). */
  active(key: string): number {
    return this.lanes.get(key)?.active ?? 0;
  }

  /** Waiters on `key` now. */
  waiting(key: string): number {
    return this.lanes.get(key)?.waiting.length ?? 0;
  }

  /** Waiters on every key now. */
  get totalWaiting(): number {
    return this.waiters;
  }

  /** Takes a place of `key`, waiting for one when all are held; `release` gives it back. */
  acquire(key: string): Promise<void> {
    const lane = this.lanes.get(key) ?? { active: 0, waiting: [] };
    this.lanes.set(key, lane);
    if (lane.active < this.capacity(key)) {
      lane.active++;
      return Promise.resolve();
    }
    this.waiters++;
    return new Promise((resolve) => lane.waiting.push(resolve));
  }

  release(key: string): void {
    const lane = this.lanes.get(key)!;
    const next = lane.waiting.shift();
    if (next) {
      this.waiters--;
      next(); // the place passes straight to the next waiter
      return;
    }
    lane.active--;
    if (lane.active === 0) this.lanes.delete(key);
  }
}

export type AttemptClass = 'first' | 'retry';

export interface DispatchLaneLimits {
  /** Calls in flight at once to one receiver origin. */
  perOrigin: number;
  /** Calls in flight at once for first attempts, over all origins. */
  firstAttempts: number;
  /** Calls in flight at once for retries, over all origins: retries never take a first attempt's place. */
  retries: number;
}

/**
 * Where a delivery waits for its HTTP call. It first waits in its origin's lane (so a slow or
 * saturated receiver queues its own work and nobody else's), then for a place of its class
 * (first attempts and retries apart, so a failing endpoint's retries never delay other accounts'
 * first attempts). An endpoint that asked to slow down (429/503 with Retry-After) is paused until
 * then: its calls wait before they enter the origin's lane, so they hold no place another endpoint
 * of that origin could use.
 */
export class DispatchLanes {
  private readonly origins: Lanes;
  private readonly classes: Lanes;
  private readonly pausedUntil = new Map<string, number>();
  private pausedWaiters = 0;
  /** Wakes the calls waiting out a pause (set while any wait). */
  private readonly wakePaused = new Set<() => void>();
  private stopped = false;

  constructor(
    private readonly limits: DispatchLaneLimits,
    private readonly nowMs: () => number = Date.now,
  ) {
    for (const [name, value] of Object.entries(limits)) {
      if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`);
    }
    this.origins = new Lanes(() => limits.perOrigin);
    this.classes = new Lanes((key) => (key === 'retry' ? limits.retries : limits.firstAttempts));
  }

  async run<T>(origin: string, attemptClass: AttemptClass, endpoint: string, work: () => Promise<T>): Promise<T> {
    if (this.pausedUntil.size > 0) await this.waitWhilePaused(endpoint);
    return this.origins.run(origin, async () => {
      // A pause that began while this call waited in the origin's lane.
      if (this.pausedUntil.size > 0) await this.waitWhilePaused(endpoint);
      return this.classes.run(attemptClass, work);
    });
  }

  /** No call to `endpoint` starts before `untilMs` (calls already started go on). */
  pause(endpoint: string, untilMs: number): void {
    if (untilMs > (this.pausedUntil.get(endpoint) ?? 0)) this.pausedUntil.set(endpoint, untilMs);
  }

  /**
   * Shutdown: calls waiting out a pause stop waiting at once (and later ones do not wait), so the
   * handler can hand their items back rather than hold them through the grace.
   */
  stopWaiting(): void {
    this.stopped = true;
    for (const wake of this.wakePaused) wake();
    this.wakePaused.clear();
  }

  inFlight(origin: string): number {
    return this.origins.active(origin);
  }

  /** Calls waiting on their origin (its lane full or paused): work that no free place would start. */
  get parked(): number {
    return this.origins.totalWaiting + this.pausedWaiters;
  }

  private async waitWhilePaused(endpoint: string): Promise<void> {
    while (!this.stopped) {
      const until = this.pausedUntil.get(endpoint);
      if (until === undefined) return;
      const wait = until - this.nowMs();
      if (wait <= 0) {
        this.pausedUntil.delete(endpoint);
        return;
      }
      this.pausedWaiters++;
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.wakePaused.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, wait);
        this.wakePaused.add(wake);
      });
      this.pausedWaiters--;
    }
  }
}

export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
