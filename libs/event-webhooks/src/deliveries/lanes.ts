import { accountShare, acquireCallPlaces, CallParking, Lanes, ParkingLimits, parkingLimits, placesOrShed, ShedFromParking } from '../../../kernel/src';

export type AttemptClass = 'first' | 'retry';

/** The call did not wait for its places: its line had enough parked, it should come back at `at`. */
export interface ShedCall {
  kind: 'shed';
  at: Date;
}

/** What `work` tells its line of the receiver's part of the call (CallParking judges the line on it). */
export interface ReceiverTiming {
  calling(): void;
  answered(): void;
}

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
 * of that origin could use. Calls waiting longer than their line (origin and account) needs to keep
 * busy are shed (CallParking): they go back to the queue, so a backlog behind a slow receiver never
 * fills the items a dispatcher holds.
 */
export class DispatchLanes {
  private readonly origins: Lanes;
  private readonly classes: Lanes;
  private readonly pausedUntil = new Map<string, number>();
  private pausedWaiters = 0;
  /** Wakes the calls waiting out a pause (set while any wait). */
  private readonly wakePaused = new Set<() => void>();
  private stopped = false;
  private readonly parking: CallParking;

  constructor(
    private readonly limits: DispatchLaneLimits,
    private readonly nowMs: () => number = Date.now,
    parking: ParkingLimits = parkingLimits(limits.perOrigin),
  ) {
    this.parking = new CallParking(parking, nowMs);
    for (const [name, value] of Object.entries(limits)) {
      if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`);
    }
    // An origin's places go to its accounts in turn: one account's backlog at a shared receiver host
    // delays another account's next call there by one place's turn.
    this.origins = new Lanes(() => limits.perOrigin);
    // One account holds at most three quarters of a class's places: however many of its calls hang,
    // another account's calls find a place at once.
    const capacity = (key: string) => (key === 'retry' ? limits.retries : limits.firstAttempts);
    this.classes = new Lanes(capacity, (key) => accountShare(capacity(key)));
  }

  /**
   * Runs `work` (the claim and the call of one delivery to `endpoint`, a webhook of `account`) in its
   * places, unless it is shed while it waits for them. `work` says when its request went to the
   * receiver and when it was answered.
   */
  async run<T>(origin: string, attemptClass: AttemptClass, endpoint: string, account: string, work: (timing: ReceiverTiming) => Promise<T>): Promise<T | ShedCall> {
    const parked = this.parking.park(`${origin}\n${account}`, () => this.pausedUntil.get(endpoint) ?? 0);
    const release = await placesOrShed(parked, (signal) => this.acquireOutsidePause(origin, attemptClass, endpoint, account, signal));
    if (release instanceof ShedFromParking) return { kind: 'shed', at: new Date(release.atMs) };
    try {
      return await work(parked);
    } finally {
      release();
    }
  }

  /** The call's places, taken once `endpoint` is not paused. */
  private async acquireOutsidePause(origin: string, attemptClass: AttemptClass, endpoint: string, account: string, signal: AbortSignal): Promise<() => void> {
    const waitOutPause = async () => {
      if (this.pausedUntil.size > 0) await this.waitWhilePaused(endpoint, signal);
    };
    for (;;) {
      const release = await acquireCallPlaces(this.origins, origin, this.classes, attemptClass, account, waitOutPause, signal);
      // A pause that began while this call waited for its places: it waits it out without them.
      if (this.stopped || !((this.pausedUntil.get(endpoint) ?? 0) > this.nowMs())) return release;
      release();
    }
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
    this.parking.stop();
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

  private async waitWhilePaused(endpoint: string, signal: AbortSignal): Promise<void> {
    while (!this.stopped) {
      signal.throwIfAborted();
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
          signal.removeEventListener('abort', wake);
          resolve();
        };
        const timer = setTimeout(wake, wait);
        this.wakePaused.add(wake);
        signal.addEventListener('abort', wake, { once: true });
      });
      this.pausedWaiters--;
    }
  }
}
