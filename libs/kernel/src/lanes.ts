/**
 * The places of outbound calls, shared fairly: by key (a receiver origin, a class of calls) and,
 * within a key, between groups (accounts). Event deliveries and automation target calls use it.
 */

interface Lane {
  active: number;
  /** Places held per group. */
  held: Map<string, number>;
  /** Waiters per group, FIFO within a group; the map's order is the turn among groups holding as many places. */
  waiting: Map<string, Array<() => void>>;
  waiters: number;
}

/**
 * A keyed semaphore: at most `capacity(key)` holders per key. Waiting holds nothing, so work queued
 * behind one key never takes a place another key could use. Within a key, waiters belong to groups
 * (an account): a freed place goes to the waiting group that holds the fewest places, in turn among
 * equals, first come first served within a group. So a group with a thousand waiters delays another
 * group's next call until one place frees, not until the thousand went. `share(key)` bounds the
 * places one group holds at once; below `capacity`, the difference stays free for other groups even
 * while that group waits.
 */
export class Lanes {
  private readonly lanes = new Map<string, Lane>();
  private waiters = 0;
  /** untilReleasedBy() callers per key and group, first come first served. */
  private readonly releaseWaiters = new Map<string, Array<() => void>>();
  private releaseWaiting = 0;

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

  /** Whether `group` holds its whole share of `key` now. */
  holdsShare(key: string, group: string): boolean {
    return (this.lanes.get(key)?.held.get(group) ?? 0) >= Math.max(1, this.share(key));
  }

  /** Resolves when `group` next gives back a place of `key`: one caller per place given back (`signal` as in acquire). */
  untilReleasedBy(key: string, group: string, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    const id = `${key}\n${group}`;
    this.releaseWaiting++;
    return waitInLine(
      (waiter) => pushTo(this.releaseWaiters, id, waiter),
      (waiter) => {
        if (removeFrom(this.releaseWaiters, id, waiter)) this.releaseWaiting--;
      },
      signal,
    );
  }

  /**
   * Waiters whose group holds its whole share (in a lane or in untilReleasedBy): no place freed by
   * another group would start them.
   */
  get waitingOnShare(): number {
    let count = this.releaseWaiting;
    for (const [key, lane] of this.lanes) {
      for (const [group, queue] of lane.waiting) if ((lane.held.get(group) ?? 0) >= Math.max(1, this.share(key))) count += queue.length;
    }
    return count;
  }

  /**
   * Takes a place of `key` for `group`, waiting for one when none may be taken; `release` gives it
   * back. Aborting `signal` while it waits leaves the line: the promise rejects with its reason.
   */
  acquire(key: string, group = '', signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
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
    const waitingLane = lane;
    return waitInLine(
      (waiter) => pushTo(waitingLane.waiting, group, waiter),
      (waiter) => {
        if (!removeFrom(waitingLane.waiting, group, waiter)) return;
        waitingLane.waiters--;
        this.waiters--;
        if (waitingLane.active === 0 && waitingLane.waiters === 0) this.lanes.delete(key);
      },
      signal,
    );
  }

  release(key: string, group = ''): void {
    const lane = this.lanes.get(key)!;
    lane.active--;
    const held = lane.held.get(group)! - 1;
    if (held === 0) lane.held.delete(group);
    else lane.held.set(group, held);
    this.handOver(key, lane);
    if (lane.active === 0 && lane.waiters === 0) this.lanes.delete(key);
    this.wakeOneReleaseWaiter(`${key}\n${group}`);
  }

  private wakeOneReleaseWaiter(id: string): void {
    const queue = this.releaseWaiters.get(id);
    if (!queue) return;
    const next = queue.shift()!;
    if (queue.length === 0) this.releaseWaiters.delete(id);
    this.releaseWaiting--;
    next();
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

/**
 * A waiter put in line by `enqueue`; when `signal` aborts first, `remove` takes it out and the
 * promise rejects with the signal's reason.
 */
function waitInLine(enqueue: (waiter: () => void) => void, remove: (waiter: () => void) => void, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (!signal) return enqueue(resolve);
    const onAbort = () => {
      remove(waiter);
      reject(signal.reason);
    };
    const waiter = () => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    enqueue(waiter);
  });
}

function pushTo(queues: Map<string, Array<() => void>>, group: string, waiter: () => void): void {
  const queue = queues.get(group);
  if (queue) queue.push(waiter);
  else queues.set(group, [waiter]);
}

/** Takes `waiter` out of its group's queue in `queues`; false if it was not there (already served). */
function removeFrom(queues: Map<string, Array<() => void>>, group: string, waiter: () => void): boolean {
  const queue = queues.get(group);
  const at = queue ? queue.indexOf(waiter) : -1;
  if (at < 0) return false;
  queue!.splice(at, 1);
  if (queue!.length === 0) queues.delete(group);
  return true;
}

/** The places of a class one account holds at most: three quarters, so a quarter is always another account's. */
export function accountShare(capacity: number): number {
  return Math.max(1, capacity - Math.ceil(capacity / 4));
}

/**
 * The two places of one call, for `group`: its origin's in `origins`, then one of `classKey` in
 * `classes`; resolves with the function that gives both back. While `group` holds its whole share of
 * the class, the call waits holding no origin place (other accounts calling that origin could use
 * it); the class place is asked for in the same turn as that check, so concurrent calls cannot all
 * pass it at once. `beforeEach` runs before each try (a pause to wait out); aborting `signal` ends
 * the wait holding nothing, rejecting with its reason.
 */
export async function acquireCallPlaces(
  origins: Lanes,
  origin: string,
  classes: Lanes,
  classKey: string,
  group: string,
  beforeEach?: () => Promise<void>,
  signal?: AbortSignal,
): Promise<() => void> {
  for (;;) {
    if (beforeEach) await beforeEach();
    await origins.acquire(origin, group, signal);
    if (!classes.holdsShare(classKey, group)) {
      try {
        await classes.acquire(classKey, group, signal);
      } catch (error) {
        origins.release(origin, group);
        throw error;
      }
      return () => {
        classes.release(classKey, group);
        origins.release(origin, group);
      };
    }
    origins.release(origin, group);
    await classes.untilReleasedBy(classKey, group, signal);
  }
}

/** A URL's origin (scheme, host and port, as the URL parser writes them): the key of its receiver's lane. */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
