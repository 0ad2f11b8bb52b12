interface Lane {
  active: number;
  /** Places held per group. */
  held: Map<string, number>;
  /** Waiters per group, FIFO within a group; the map's order is the round-robin order of the groups. */
  waiting: Map<string, Array<() => void>>;
  waiters: number;
}

/**
 * A keyed semaphore: at most `capacity(key)` holders per key. Waiting holds nothing, so work queued
 * behind one key never takes a place another key could use. Within a key, waiters belong to groups
 * (an account): a freed place goes to the waiting group that holds the fewest places, in turn among
 * equals, first come first served within a group. So a group with a thousand waiters delays another
 * group's next call until one place frees, not until the thousand went. `share(key)` bounds the places one group holds at once; below `capacity`, the
 * difference stays free for other groups even while that group waits.
 */
export class Lanes {
  private readonly lanes = new Map<string, Lane>();
  private waiters = 0;

  constructor(
    private readonly capacity: (key: string) => number,
    private readonly share: (key: string) => number = capacity,
  ) {}

  /** Runs `work` holding a place of `key`, for `group`. */
  async run<T>(key: string, work: () => Promise<T>, group = ''): Promise<T> {
    await this.acquire(key, group);
    try {
      return await work();
    } finally {
      this.release(key, group);
    }
  }

  /** Holders of `key` now (for tests and metrics). */
  active(key: string): number {
    return this.lanes.get(key)?.active ?? 0;
  }

  /** Waiters on `key` now. */
  waiting(key: string): number {
    return this.lanes.get(key)?.waiters ?? 0;
  }

  /** Waiters on every key now. */
  get totalWaiting(): number {
    return this.waiters;
  }

  /** Waiters whose group holds its whole share: no place freed by another group would start them. */
  get waitingOnShare(): number {
    let count = 0;
    for (const [key, lane] of this.lanes) {
      for (const [group, queue] of lane.waiting) if ((lane.held.get(group) ?? 0) >= Math.max(1, this.share(key))) count += queue.length;
    }
    return count;
  }

  /** Takes a place of `key` for `group`, waiting for one when none may be taken; `release` gives it back. */
  acquire(key: string, group = ''): Promise<void> {
    let lane = this.lanes.get(key);
    if (!lane) {
      lane = { active: 0, held: new Map(), waiting: new Map(), waiters: 0 };
      this.lanes.set(key, lane);
    }
    // A group already waiting keeps its turn: a newcomer of that group does not pass its own waiters.
    if (!lane.waiting.has(group) && this.mayTake(key, lane, group)) {
      this.take(lane, group);
      return Promise.resolve();
    }
    this.waiters++;
    lane.waiters++;
    return new Promise((resolve) => {
      const queue = lane.waiting.get(group);
      if (queue) queue.push(resolve);
      else lane.waiting.set(group, [resolve]);
    });
  }

  release(key: string, group = ''): void {
    const lane = this.lanes.get(key)!;
    lane.active--;
    const held = lane.held.get(group)! - 1;
    if (held === 0) lane.held.delete(group);
    else lane.held.set(group, held);
    this.handOver(key, lane);
    if (lane.active === 0 && lane.waiters === 0) this.lanes.delete(key);
  }

  /**
   * Gives free places to the waiting groups: the one holding the fewest places first (a group that
   * holds none passes one that holds many), in turn among equals (the group served goes to the end).
   */
  private handOver(key: string, lane: Lane): void {
    while (lane.waiters > 0 && lane.active < this.capacity(key)) {
      let chosen: string | undefined;
      for (const group of lane.waiting.keys()) {
        if (this.mayTake(key, lane, group) && (chosen === undefined || (lane.held.get(group) ?? 0) < (lane.held.get(chosen) ?? 0))) chosen = group;
      }
      if (chosen === undefined) return;
      const queue = lane.waiting.get(chosen)!;
      const next = queue.shift()!;
      lane.waiting.delete(chosen);
      if (queue.length > 0) lane.waiting.set(chosen, queue);
      lane.waiters--;
      this.waiters--;
      this.take(lane, chosen);
      next();
    }
  }

  private mayTake(key: string, lane: Lane, group: string): boolean {
    return lane.active < this.capacity(key) && (lane.held.get(group) ?? 0) < Math.max(1, this.share(key));
  }

  private take(lane: Lane, group: string): void {
    lane.active++;
    lane.held.set(group, (lane.held.get(group) ?? 0) + 1);
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
    // An origin's places go to its accounts in turn: one account's backlog at a shared receiver host
    // delays another account's next call there by one place's turn.
    this.origins = new Lanes(() => limits.perOrigin);
    // One account holds at most three quarters of a class's places: however many of its calls hang,
    // another account's calls find a place at once.
    const capacity = (key: string) => (key === 'retry' ? limits.retries : limits.firstAttempts);
    this.classes = new Lanes(capacity, (key) => capacity(key) - Math.ceil(capacity(key) / 4));
  }

  /** Runs `work` (the claim and the call of one delivery to `endpoint`, a webhook of `account`) in its places. */
  async run<T>(origin: string, attemptClass: AttemptClass, endpoint: string, account: string, work: () => Promise<T>): Promise<T> {
    if (this.pausedUntil.size > 0) await this.waitWhilePaused(endpoint);
    return this.origins.run(
      origin,
      async () => {
        // A pause that began while this call waited in the origin's lane.
        if (this.pausedUntil.size > 0) await this.waitWhilePaused(endpoint);
        return this.classes.run(attemptClass, work, account);
      },
      account,
    );
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

  /**
   * Calls waiting on their origin (its lane full or paused) or on their account's share of a class:
   * work that no free place would start.
   */
  get parked(): number {
    return this.origins.totalWaiting + this.pausedWaiters + this.classes.waitingOnShare;
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
