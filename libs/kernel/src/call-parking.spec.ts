import { CallParking, ParkedCall, ShedFromParking } from './call-parking';

const LIMITS = { horizonMs: 5_000, minParkedMs: 1_000, sweepEveryMs: 60_000, slowCallMs: 500, idleRate: 10, maxReturnMs: 60_000 };

function shedAt(call: ParkedCall): number | null {
  return call.signal.aborted ? (call.signal.reason as ShedFromParking).atMs : null;
}

describe(CallParking.name, () => {
  let now: number;
  let sut: CallParking;

  beforeEach(() => {
    now = 1_000_000;
    sut = new CallParking(LIMITS, () => now);
  });

  afterEach(() => sut.stop());

  /** Starts 4 of `calls` every 10 ms for a second, at most `inFlight` unfinished at once; returns how many started. */
  const startOverASecond = (calls: ParkedCall[], inFlight: number): number => {
    let next = 0;
    const running: ParkedCall[] = [];
    for (let tick = 0; tick < 100; tick++) {
      now += 10;
      while (running.length >= inFlight - 3) running.shift()!.finished();
      for (let i = 0; i < 4; i++) {
        calls[next].started();
        running.push(calls[next++]);
      }
    }
    return next;
  };

  it('keeps what a line starts within the horizon at its rate while calls wait, and sheds the newest of the rest', () => {
    const calls = Array.from({ length: 100 }, () => sut.park('o\na'));
    // 20 of the waiting calls started over 2 s: 10 per second while saturated, so 50 parked are kept (5 s worth).
    now += 1_000;
    for (const call of calls.slice(0, 10)) call.started();
    now += 1_000;
    for (const call of calls.slice(10, 20)) call.started();
    expect(sut.rate('o\na')).toBe(10);
    sut.sweep();
    const waiting = calls.slice(20);
    expect(waiting.slice(0, 50).every((c) => shedAt(c) === null)).toBe(true);
    const shed = waiting.slice(50).map(shedAt);
    expect(shed.every((at) => at !== null)).toBe(true);
    expect(sut.parked('o\na')).toBe(50);
    // Their returns are spaced at the line's rate from half a horizon on, oldest first.
    expect(shed[0]).toBe(now + 2_500 + 100);
    expect(shed[29]).toBe(now + 2_500 + 3_000);
  });

  it('does not judge a line by calls that never waited: little to do is not slow', () => {
    // one call every 5 s, each starting at once, for a minute
    for (let i = 0; i < 12; i++) {
      sut.park('o\na').started();
      now += 5_000;
    }
    expect(sut.rate('o\na')).toBeNull();
    // then a burst: nothing of it is shed at once
    const burst = Array.from({ length: 125 }, () => sut.park('o\na'));
    expect(burst.every((c) => shedAt(c) === null)).toBe(true);
  });

  it('never sheds a fast line, however many wait: a burst on a busy process measures a low rate, but its calls are short', () => {
    const calls = Array.from({ length: 4_000 }, () => sut.park('o\na'));
    // 400 calls a second, 64 in flight at a time: each holds its places 160 ms
    const next = startOverASecond(calls, 64);
    sut.sweep();
    expect(calls.slice(next).every((c) => shedAt(c) === null)).toBe(true);
    expect(shedAt(sut.park('o\na'))).toBeNull();
  });

  it('sheds where the calls are slow: the same rate, each call holding its places a second', () => {
    const calls = Array.from({ length: 4_000 }, () => sut.park('o\na'));
    const next = startOverASecond(calls, 400);
    sut.sweep();
    // 400 a second: 2,000 kept, the rest shed
    expect(calls.slice(next).filter((c) => shedAt(c) !== null)).toHaveLength(4_000 - next - 2_000);
  });

  it("judges a line on the receiver's part of its calls where they report it: places held a second behind a busy database, answers in 10 ms, is not slow", () => {
    const calls = Array.from({ length: 4_000 }, () => sut.park('o\na'));
    let next = 0;
    const running: ParkedCall[] = [];
    for (let tick = 0; tick < 100; tick++) {
      now += 10;
      while (running.length >= 397) running.shift()!.finished();
      for (let i = 0; i < 4; i++) {
        const call = calls[next++];
        call.started();
        // the claim took its time; the receiver answers within the tick
        call.calling();
        call.answered();
        running.push(call);
      }
    }
    sut.sweep();
    expect(calls.slice(next).every((c) => shedAt(c) === null)).toBe(true);
  });

  it('judges a line slow while its calls wait at the receiver, answered or not', () => {
    const calls = Array.from({ length: 100 }, () => sut.park('o\na'));
    for (const call of calls.slice(0, 10)) {
      call.started();
      call.calling();
    }
    now += 1_000;
    // no answer for a second: the receiver hangs; the 90 parked beyond what it keeps are shed
    sut.sweep();
    expect(calls.slice(10).filter((c) => shedAt(c) !== null).length).toBeGreaterThan(0);
  });

  it('never sheds a call parked for less than minParkedMs, however slow its line', () => {
    const calls = Array.from({ length: 10 }, () => sut.park('o\na'));
    now += 999;
    sut.sweep();
    expect(calls.every((c) => shedAt(c) === null)).toBe(true);
    now += 1;
    sut.sweep();
    // nothing started while they waited: nothing is kept
    expect(calls.every((c) => shedAt(c) !== null)).toBe(true);
  });

  it('keeps a fast line whole', () => {
    const calls = Array.from({ length: 3_000 }, () => sut.park('o\na'));
    now += 1_500;
    for (const call of calls.slice(0, 1_000)) call.started();
    sut.sweep();
    expect(calls.slice(1_000).every((c) => shedAt(c) === null)).toBe(true);
  });

  it('judges lines apart: a stalled line of one account sheds, another account at the same origin keeps its calls', () => {
    const slow = Array.from({ length: 30 }, () => sut.park('o\nslow'));
    const other = Array.from({ length: 30 }, () => sut.park('o\nother'));
    now += 1_000;
    for (const call of other.slice(0, 10)) call.started();
    sut.sweep();
    expect(slow.every((c) => shedAt(c) !== null)).toBe(true);
    expect(other.every((c) => shedAt(c) === null)).toBe(true);
  });

  it('sheds a new call at once where the line is known to be slow and has all it keeps parked, or where a pause outlasts the horizon', () => {
    const waiting = Array.from({ length: 6 }, () => sut.park('o\na'));
    now += 1_000;
    waiting[0].started();
    // 1 call per second while saturated: the line keeps 5 parked, and has them
    expect(sut.parked('o\na')).toBe(5);
    expect(shedAt(sut.park('o\na'))).not.toBeNull();
    waiting[1].started();
    expect(shedAt(sut.park('o\na'))).toBeNull();

    const pauseEnd = now + 30_000;
    expect(shedAt(sut.park('o\nb', () => pauseEnd))).toBe(pauseEnd);
    expect(shedAt(sut.park('o\nc', () => now + 4_000))).toBeNull();
  });

  it('brings a shed call back no earlier than its notBefore (the end of a pause), and spaces later returns after it', () => {
    const pauseEnd = now + 4_900;
    const calls = Array.from({ length: 3 }, () => sut.park('o\na', () => pauseEnd));
    now += 1_000;
    sut.sweep();
    expect(calls.map(shedAt)).toEqual([pauseEnd, pauseEnd + 100, pauseEnd + 200]);
  });

  it('continues the spacing of earlier returns when more calls are shed later, and brings none back later than maxReturnMs', () => {
    const first = Array.from({ length: 20 }, () => sut.park('o\na'));
    now += 1_000;
    sut.sweep();
    const last = shedAt(first[19])!;
    expect(last).toBe(now + 2_500 + 2_000);
    const later = Array.from({ length: 2 }, () => sut.park('o\na'));
    now += 1_000;
    sut.sweep();
    // (the newer one was shed at once, parked behind the older one in a stalled line; the older one at the sweep)
    expect(later.map(shedAt).sort()).toEqual([last + 100, last + 200]);
    const many = Array.from({ length: 1_000 }, () => sut.park('o\na'));
    now += 1_000;
    sut.sweep();
    expect(Math.max(...many.map((c) => shedAt(c)!))).toBeLessThanOrEqual(now + 60_000);
  });

  it('forgets a line once nothing is parked or counted there', () => {
    const calls = Array.from({ length: 3 }, () => sut.park('o\na'));
    now += 1_500;
    for (const call of calls) call.started();
    expect(sut.rate('o\na')).toBe(2);
    now += 11_000;
    sut.sweep();
    expect(sut.rate('o\na')).toBeNull();
    expect(sut.parked('o\na')).toBe(0);
  });

  it('never sheds a call at once in a line with nothing parked, however slow it was', () => {
    const calls = Array.from({ length: 3 }, () => sut.park('o\na'));
    now += 5_000;
    calls[0].started();
    calls[1].left();
    calls[2].left();
    expect(shedAt(sut.park('o\na'))).toBeNull();
  });
});
