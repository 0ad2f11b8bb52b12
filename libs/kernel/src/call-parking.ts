/**
 * How long calls may wait in memory for their places, per line (a receiver origin and an account).
 *
 * A dispatcher holds a bounded number of queue items. Without a bound per line, one account's
 * backlog parked behind a slow or paused receiver fills them, and the queue, which hands work out
 * oldest first, keeps every other account's items until that backlog shrinks. So a line keeps in
 * memory what it will start within `horizonMs` at the rate its calls have lately been starting; the
 * rest is shed: handed back to the queue, each due when the line should be ready for it.
 */
export interface ParkingLimits {
  /** What a line keeps parked: the calls it starts in this long, at its recent rate. */
  horizonMs: number;
  /** A call parked for less is never shed: a burst at a fast receiver is not a backlog. */
  minParkedMs: number;
  /** How often lines are looked at. */
  sweepEveryMs: number;
  /** Calls per second assumed for a line that started none lately (a paused receiver), to space its returns. */
  idleRate: number;
}

export const DEFAULT_PARKING_LIMITS: ParkingLimits = { horizonMs: 5_000, minParkedMs: 1_000, sweepEveryMs: 500, idleRate: 16 };

/** Why a parked call's wait was aborted: it was shed, and should come back at `atMs`. */
export class ShedFromParking extends Error {
  constructor(readonly atMs: number) {
    super('shed: the call waits in the queue until its line is ready for it');
  }
}

/** Recent starts are counted per second over this many seconds. */
const RATE_WINDOW_S = 10;

interface Line {
  parked: Set<ParkedCall>;
  startsPerSecond: number[];
  secondOf: number[];
  firstStartMs: number | null;
  /** Where the next shed call's return goes: returns are spaced at the line's rate. */
  returnCursorMs: number;
}

/** One call waiting for its places; `signal` aborts (with a ShedFromParking) when it is shed. */
export class ParkedCall {
  private readonly controller = new AbortController();
  readonly signal = this.controller.signal;

  constructor(
    private readonly lot: CallParking,
    readonly line: string,
    readonly parkedAtMs: number,
    /** The earliest a shed call may come back (the end of its endpoint's pause). */
    readonly notBeforeMs: () => number,
  ) {}

  /** Its places are taken: the call starts now. */
  started(): void {
    this.lot.leave(this, true);
  }

  /** It stopped waiting otherwise (shed, stopped, failed). */
  left(): void {
    this.lot.leave(this, false);
  }

  shed(atMs: number): void {
    this.controller.abort(new ShedFromParking(atMs));
  }
}

export class CallParking {
  private readonly lines = new Map<string, Line>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly limits: ParkingLimits = DEFAULT_PARKING_LIMITS,
    private readonly nowMs: () => number = Date.now,
  ) {}

  /**
   * A call of `line` begins to wait for its places. It is shed at once when the line is known to
   * be slow (its rate measured for minParkedMs) and has as many parked as it keeps (one at least: a
   * line that started nothing lately but has nothing waiting is idle, not slow), or when it may
   * not start before the horizon anyway (a pause): so a backlog is skimmed at the speed the queue
   * hands it out, not a dispatcher's worth of items per minParkedMs.
   */
  park(line: string, notBeforeMs: () => number = () => 0): ParkedCall {
    const nowMs = this.nowMs();
    const state = this.lineOf(line);
    const call = new ParkedCall(this, line, nowMs, notBeforeMs);
    const rate = this.rateOf(state, nowMs);
    const known = state.firstStartMs !== null && nowMs - state.firstStartMs >= this.limits.minParkedMs;
    if ((known && state.parked.size >= Math.max(1, this.keepOf(rate))) || notBeforeMs() - nowMs > this.limits.horizonMs) {
      this.shed(state, [call], nowMs, rate);
      return call;
    }
    state.parked.add(call);
    if (!this.stopped) this.timer ??= setInterval(() => this.sweep(), this.limits.sweepEveryMs).unref();
    return call;
  }

  leave(call: ParkedCall, started: boolean): void {
    const line = this.lines.get(call.line);
    if (!line || !line.parked.delete(call) || !started) return;
    const nowMs = this.nowMs();
    const second = Math.floor(nowMs / 1000);
    const slot = second % RATE_WINDOW_S;
    if (line.secondOf[slot] !== second) {
      line.secondOf[slot] = second;
      line.startsPerSecond[slot] = 0;
    }
    line.startsPerSecond[slot]++;
    line.firstStartMs ??= nowMs;
  }

  /** Calls of `line` parked now. */
  parked(line: string): number {
    return this.lines.get(line)?.parked.size ?? 0;
  }

  /** Calls per second `line` started lately. */
  rate(line: string): number {
    const state = this.lines.get(line);
    return state ? this.rateOf(state, this.nowMs()) : 0;
  }

  /** Sheds, in every line, the parked calls beyond what it starts within the horizon (the newest first to go). */
  sweep(): void {
    const nowMs = this.nowMs();
    for (const [key, line] of this.lines) {
      const rate = this.rateOf(line, nowMs);
      if (line.parked.size === 0) {
        if (rate === 0) this.lines.delete(key);
        continue;
      }
      const keep = this.keepOf(rate);
      if (line.parked.size <= keep) continue;
      const beyond: ParkedCall[] = [];
      let index = 0;
      for (const call of line.parked) {
        if (index++ < keep) continue;
        // Parked in order: the rest came later still.
        if (nowMs - call.parkedAtMs < this.limits.minParkedMs) break;
        beyond.push(call);
      }
      this.shed(line, beyond, nowMs, rate);
    }
    if (this.lines.size === 0) this.pauseSweeps();
  }

  /** Shutdown: no more sweeps (what waits then is handed back by its owner). */
  stop(): void {
    this.stopped = true;
    this.pauseSweeps();
  }

  private pauseSweeps(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private keepOf(rate: number): number {
    return Math.ceil((rate * this.limits.horizonMs) / 1000);
  }

  /** Sheds `calls` (in their order): each comes back after the one before, spaced at the line's rate, from half a horizon on. */
  private shed(line: Line, calls: ParkedCall[], nowMs: number, rate: number): void {
    const spacingMs = 1000 / (rate > 0 ? rate : this.limits.idleRate);
    let cursor = Math.max(line.returnCursorMs, nowMs + this.limits.horizonMs / 2);
    for (const call of calls) {
      cursor = Math.max(cursor + spacingMs, call.notBeforeMs());
      line.parked.delete(call);
      call.shed(Math.ceil(cursor));
    }
    line.returnCursorMs = cursor;
  }

  private lineOf(key: string): Line {
    let line = this.lines.get(key);
    if (!line) {
      line = { parked: new Set(), startsPerSecond: new Array(RATE_WINDOW_S).fill(0), secondOf: new Array(RATE_WINDOW_S).fill(-1), firstStartMs: null, returnCursorMs: 0 };
      this.lines.set(key, line);
    }
    return line;
  }

  /** Starts over the window, per second of it (of the time since the line's first start, when shorter; at least a second). */
  private rateOf(line: Line, nowMs: number): number {
    if (line.firstStartMs === null) return 0;
    const second = Math.floor(nowMs / 1000);
    let starts = 0;
    for (let slot = 0; slot < RATE_WINDOW_S; slot++) if (second - line.secondOf[slot] < RATE_WINDOW_S) starts += line.startsPerSecond[slot];
    const spanS = Math.min(RATE_WINDOW_S, Math.max(1, (nowMs - line.firstStartMs) / 1000));
    return starts / spanS;
  }
}

/**
 * Waits for a parked call's places with `acquire` (given the call's signal): the function giving
 * them back, or the ShedFromParking saying when to come back if the call was shed meanwhile.
 */
export async function placesOrShed(call: ParkedCall, acquire: (signal: AbortSignal) => Promise<() => void>): Promise<(() => void) | ShedFromParking> {
  try {
    return await acquire(call.signal);
  } catch (error) {
    call.left();
    if (error instanceof ShedFromParking) return error;
    throw error;
  }
}
