/**
 * How long calls may wait in memory for their places, per line (a receiver origin and an account).
 *
 * A dispatcher holds a bounded number of queue items. Without a bound per line, one account's
 * backlog parked behind a slow or paused receiver fills them, and the queue, which hands work out
 * oldest first, keeps every other account's items until that backlog shrinks. So a slow line (its
 * calls take `slowCallMs` or more, or none starts while calls wait) keeps in memory what it will
 * start within `horizonMs` at the rate it starts calls while some wait (its capacity: a line that
 * merely has little to do is not judged); the rest is shed, handed back to the queue, each due when
 * the line should be ready for it. A fast line is never shed: its backlog clears at the
 * dispatcher's own pace, and sending it back to the queue would only add work (a burst to a fast
 * receiver on a busy process measures a low rate, but short calls).
 */
export interface ParkingLimits {
  /** What a line keeps parked: the calls it starts in this long, at its rate while saturated. */
  horizonMs: number;
  /**
   * A call parked for less is never shed, and a line is judged only after its calls waited this
   * long in the last RATE_WINDOW_S (a burst at a fast receiver is not a backlog).
   */
  minParkedMs: number;
  /** How often lines are looked at. */
  sweepEveryMs: number;
  /**
   * A line whose calls take this long on average is slow: the receiver's part of them where the
   * caller reports it (ParkedCall.calling and answered), else the time they hold their places.
   */
  slowCallMs: number;
  /**
   * Calls per second assumed for a line that started none while calls waited (a hanging or paused
   * receiver), to space its returns: its origin's places, the pace a receiver that recovered and
   * answers within a second takes them at.
   */
  idleRate: number;
  /**
   * No shed call is due later than this from now, so a receiver that recovered gets its backlog
   * back. Long: calls that come back before their line can take them are shed again, and a large
   * backlog at a stalled receiver would be read and written again each time.
   */
  maxReturnMs: number;
}

/** The limits of lines whose origin has `placesPerOrigin` calls in flight at most. */
export function parkingLimits(placesPerOrigin: number): ParkingLimits {
  return { horizonMs: 5_000, minParkedMs: 1_000, sweepEveryMs: 500, slowCallMs: 500, idleRate: placesPerOrigin, maxReturnMs: 3_600_000 };
}

/**
 * Why a parked call's wait was aborted: it was shed, and should come back at `atMs`. Not an Error:
 * a backlog is shed by the thousand, and nobody needs their stack traces.
 */
export class ShedFromParking {
  constructor(readonly atMs: number) {}
}

/** A line's saturated time and starts are kept per second over this many seconds. */
const RATE_WINDOW_S = 10;

interface Line {
  parked: Set<ParkedCall>;
  /** Calls started and not yet finished. */
  inFlight: number;
  /** Per second of the window: the time some call waited, and the calls started meanwhile. */
  second: number[];
  busyMs: number[];
  starts: number[];
  /** Per second of the window: the receiver's time of the calls answered, and how many. */
  answeredMs: number[];
  answered: number[];
  /** Calls at the receiver now (between calling and answered). */
  calling: Set<ParkedCall>;
  /** While calls wait: up to when their waiting time has been counted. */
  busyCountedTo: number | null;
  /** Where the next shed call's return goes: returns are spaced at the line's rate. */
  returnCursorMs: number;
}

/** One call waiting for its places; `signal` aborts (with a ShedFromParking) when it is shed. */
export class ParkedCall {
  private readonly controller = new AbortController();
  readonly signal = this.controller.signal;
  /** When the receiver's part of the call began (calling), until it is answered. */
  callingSinceMs: number | null = null;

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

  /** The call ended (its places given back). */
  finished(): void {
    this.lot.answer(this);
    this.lot.finish(this);
  }

  /**
   * The request goes to the receiver now: what came before in its places (a claim in the database)
   * is not the receiver's time. Reporting it (and `answered`) lets the line be judged on the receiver.
   */
  calling(): void {
    this.lot.call(this);
  }

  /** The receiver answered, or the call failed (what comes after, recording it, is not the receiver's time). */
  answered(): void {
    this.lot.answer(this);
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
    private readonly limits: ParkingLimits,
    private readonly nowMs: () => number = Date.now,
  ) {}

  /**
   * A call of `line` begins to wait for its places. It is shed at once when the line is known to
   * be slow (judged on its saturated time) and has as many parked as it keeps (one at least), or
   * when it may not start before the horizon anyway (a pause): so a backlog is skimmed at the speed
   * the queue hands it out, not a dispatcher's worth of items per minParkedMs.
   */
  park(line: string, notBeforeMs: () => number = () => 0): ParkedCall {
    const nowMs = this.nowMs();
    const state = this.lineOf(line);
    const call = new ParkedCall(this, line, nowMs, notBeforeMs);
    const rate = state.parked.size > 0 ? this.rateOf(state, nowMs) : null;
    if ((rate !== null && this.isSlow(state, rate, nowMs) && state.parked.size >= Math.max(1, this.keepOf(rate))) || notBeforeMs() - nowMs > this.limits.horizonMs) {
      this.shed(state, [call], nowMs, rate);
      return call;
    }
    this.countBusy(state, nowMs);
    if (state.parked.size === 0) state.busyCountedTo = nowMs;
    state.parked.add(call);
    if (!this.stopped) this.timer ??= setInterval(() => this.sweep(), this.limits.sweepEveryMs).unref();
    return call;
  }

  leave(call: ParkedCall, started: boolean): void {
    const line = this.lines.get(call.line);
    if (!line || !line.parked.has(call)) return;
    const nowMs = this.nowMs();
    this.countBusy(line, nowMs);
    line.parked.delete(call);
    // A start counts when calls waited for it: the line was saturated, so it tells its capacity.
    if (started && (call.parkedAtMs < nowMs || line.parked.size > 0)) line.starts[this.slotOf(line, nowMs)]++;
    if (started) line.inFlight++;
    this.afterRemoval(line);
  }

  finish(call: ParkedCall): void {
    const line = this.lines.get(call.line);
    if (line && line.inFlight > 0) line.inFlight--;
  }

  call(call: ParkedCall): void {
    const line = this.lines.get(call.line);
    if (!line || call.callingSinceMs !== null) return;
    call.callingSinceMs = this.nowMs();
    line.calling.add(call);
  }

  answer(call: ParkedCall): void {
    const line = this.lines.get(call.line);
    if (!line || call.callingSinceMs === null || !line.calling.delete(call)) return;
    const nowMs = this.nowMs();
    const slot = this.slotOf(line, nowMs);
    line.answeredMs[slot] += nowMs - call.callingSinceMs;
    line.answered[slot]++;
  }

  /** Calls of `line` parked now. */
  parked(line: string): number {
    return this.lines.get(line)?.parked.size ?? 0;
  }

  /** Calls per second `line` started while calls waited, over the window; null until they waited minParkedMs in it. */
  rate(line: string): number | null {
    const state = this.lines.get(line);
    return state ? this.rateOf(state, this.nowMs()) : null;
  }

  /** Sheds, in every line, the parked calls beyond what it starts within the horizon (the newest first to go). */
  sweep(): void {
    const nowMs = this.nowMs();
    for (const [key, line] of this.lines) {
      const rate = this.rateOf(line, nowMs);
      if (line.parked.size === 0) {
        if (line.inFlight === 0 && line.calling.size === 0 && this.windowEmpty(line, nowMs)) this.lines.delete(key);
        continue;
      }
      if (rate === null || !this.isSlow(line, rate, nowMs)) continue;
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

  /**
   * Its calls take slowCallMs or more on average. Where calls report the receiver's part, that is
   * what counts (answered ones over the window and those at the receiver now, each for as long as
   * it has been there): a fast receiver behind a busy database is not slow, sending its calls back
   * to the queue would only add work. Else the time they hold their places (Little's law: calls in
   * flight / starts per second), and a line that started none is slow.
   */
  private isSlow(line: Line, rate: number, nowMs: number): boolean {
    let receiverMs = this.inWindow(line, nowMs, line.answeredMs);
    for (const call of line.calling) receiverMs += nowMs - (call.callingSinceMs ?? nowMs);
    const calls = this.inWindow(line, nowMs, line.answered) + line.calling.size;
    if (calls > 0) return receiverMs / calls >= this.limits.slowCallMs;
    return rate === 0 || (line.inFlight / rate) * 1000 >= this.limits.slowCallMs;
  }

  private keepOf(rate: number): number {
    return Math.ceil((rate * this.limits.horizonMs) / 1000);
  }

  /**
   * Sheds `calls` (in their order): each comes back after the one before, spaced at the line's rate,
   * from half a horizon on (or its pause's end), and no later than maxReturnMs after that.
   */
  private shed(line: Line, calls: ParkedCall[], nowMs: number, rate: number | null): void {
    const spacingMs = 1000 / (rate ? rate : this.limits.idleRate);
    let cursor = Math.max(line.returnCursorMs, nowMs + this.limits.horizonMs / 2);
    for (const call of calls) {
      const notBefore = call.notBeforeMs();
      cursor = Math.min(Math.max(cursor + spacingMs, notBefore), Math.max(nowMs, notBefore) + this.limits.maxReturnMs);
      if (line.parked.delete(call)) this.afterRemoval(line);
      call.shed(Math.ceil(cursor));
    }
    line.returnCursorMs = cursor;
  }

  private afterRemoval(line: Line): void {
    if (line.parked.size === 0) line.busyCountedTo = null;
  }

  private lineOf(key: string): Line {
    let line = this.lines.get(key);
    if (!line) {
      const slots = () => new Array<number>(RATE_WINDOW_S).fill(0);
      line = {
        parked: new Set(),
        inFlight: 0,
        second: new Array<number>(RATE_WINDOW_S).fill(-1),
        busyMs: slots(),
        starts: slots(),
        answeredMs: slots(),
        answered: slots(),
        calling: new Set(),
        busyCountedTo: null,
        returnCursorMs: 0,
      };
      this.lines.set(key, line);
    }
    return line;
  }

  /** The slot of `nowMs`'s second, emptied if it held an older second. */
  private slotOf(line: Line, nowMs: number): number {
    const second = Math.floor(nowMs / 1000);
    const slot = second % RATE_WINDOW_S;
    if (line.second[slot] !== second) {
      line.second[slot] = second;
      line.busyMs[slot] = 0;
      line.starts[slot] = 0;
      line.answeredMs[slot] = 0;
      line.answered[slot] = 0;
    }
    return slot;
  }

  /** Adds the time calls have waited since it was last counted (sweeps count it at least every sweepEveryMs). */
  private countBusy(line: Line, nowMs: number): void {
    if (line.busyCountedTo === null) return;
    line.busyMs[this.slotOf(line, nowMs)] += Math.max(0, nowMs - line.busyCountedTo);
    line.busyCountedTo = nowMs;
  }

  private rateOf(line: Line, nowMs: number): number | null {
    this.countBusy(line, nowMs);
    const busyMs = this.inWindow(line, nowMs, line.busyMs);
    return busyMs < this.limits.minParkedMs ? null : this.inWindow(line, nowMs, line.starts) / (busyMs / 1000);
  }

  /** One of the line's per-second counts, added up over the seconds of the window. */
  private inWindow(line: Line, nowMs: number, perSecond: number[]): number {
    const second = Math.floor(nowMs / 1000);
    let sum = 0;
    for (let slot = 0; slot < RATE_WINDOW_S; slot++) if (second - line.second[slot] < RATE_WINDOW_S) sum += perSecond[slot];
    return sum;
  }

  private windowEmpty(line: Line, nowMs: number): boolean {
    const second = Math.floor(nowMs / 1000);
    return line.second.every((s, slot) => second - s >= RATE_WINDOW_S || (line.busyMs[slot] === 0 && line.starts[slot] === 0 && line.answered[slot] === 0));
  }
}

/**
 * Waits for a parked call's places with `acquire` (given the call's signal), and counts its start:
 * the function that gives them back at the call's end, or the ShedFromParking saying when to come
 * back if the call was shed meanwhile.
 */
export async function placesOrShed(call: ParkedCall, acquire: (signal: AbortSignal) => Promise<() => void>): Promise<(() => void) | ShedFromParking> {
  let release: () => void;
  try {
    release = await acquire(call.signal);
  } catch (error) {
    call.left();
    if (error instanceof ShedFromParking) return error;
    throw error;
  }
  call.started();
  return () => {
    release();
    call.finished();
  };
}
