import { CallParking, ParkedCall, ShedFromParking } from './call-parking';

const LIMITS = { horizonMs: 5_000, minParkedMs: 1_000, sweepEveryMs: 60_000, idleRate: 10 };

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

  it('keeps what a line starts within the horizon at its recent rate, and sheds the newest of the rest', () => {
    const calls = Array.from({ length: 100 }, () => sut.park('o\na'));
    // 20 started in the first 2 s: 10 per second, so 50 parked are kept (5 s worth).
    for (const call of calls.slice(0, 10)) call.started();
    now += 2_000;
    for (const call of calls.slice(10, 20)) call.started();
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

  it('never sheds a call parked for less than minParkedMs, however slow its line', () => {
    const calls = Array.from({ length: 10 }, () => sut.park('o\na'));
    now += 999;
    sut.sweep();
    expect(calls.every((c) => shedAt(c) === null)).toBe(true);
    now += 1;
    sut.sweep();
    // no call ever started there: nothing is kept
    expect(calls.every((c) => shedAt(c) !== null)).toBe(true);
  });

  it('keeps a fast line whole', () => {
    const calls = Array.from({ length: 2_000 }, () => sut.park('o\na'));
    for (const call of calls.slice(0, 1_000)) call.started();
    now += 1_500;
    sut.sweep();
    expect(calls.slice(1_000).every((c) => shedAt(c) === null)).toBe(true);
  });

  it('judges lines apart: a slow line of one account sheds, another account at the same origin keeps its calls', () => {
    const slow = Array.from({ length: 30 }, () => sut.park('o\nslow'));
    const other = Array.from({ length: 30 }, () => sut.park('o\nother'));
    for (const call of other.slice(0, 10)) call.started();
    now += 2_000;
    sut.sweep();
    expect(slow.every((c) => shedAt(c) !== null)).toBe(true);
    expect(other.every((c) => shedAt(c) === null)).toBe(true);
  });

  it('brings a shed call back no earlier than its notBefore (the end of a pause), and spaces later returns after it', () => {
    const pauseEnd = now + 60_000;
    const calls = Array.from({ length: 3 }, () => sut.park('o\na', () => pauseEnd));
    now += 1_000;
    sut.sweep();
    expect(calls.map(shedAt)).toEqual([pauseEnd, pauseEnd + 100, pauseEnd + 200]);
  });

  it('continues the spacing of earlier returns when more calls are shed later', () => {
    const first = Array.from({ length: 20 }, () => sut.park('o\na'));
    now += 1_000;
    sut.sweep();
    const last = shedAt(first[19])!;
    const later = Array.from({ length: 2 }, () => sut.park('o\na'));
    now += 1_000;
    sut.sweep();
    expect(later.map(shedAt)).toEqual([last + 100, last + 200]);
  });

  it('sheds a new call at once where the line is known to be slow and has all it keeps parked, or where a pause outlasts the horizon', () => {
    sut.park('o\na').started();
    // 1 call per second: the line keeps 5 parked
    const kept = Array.from({ length: 5 }, () => sut.park('o\na'));
    expect(kept.every((c) => shedAt(c) === null)).toBe(true);
    // its rate is not known yet: a sixth waits for a sweep
    expect(shedAt(sut.park('o\na'))).toBeNull();
    now += 1_000;
    const late = sut.park('o\na');
    expect(shedAt(late)).not.toBeNull();
    expect(sut.parked('o\na')).toBe(6);

    const pauseEnd = now + 30_000;
    expect(shedAt(sut.park('o\nb', () => pauseEnd))).toBe(pauseEnd);
    expect(shedAt(sut.park('o\nc', () => now + 4_000))).toBeNull();
  });

  it('never sheds a call at once in a line with nothing parked, however long ago its last start', () => {
    sut.park('o\na').started();
    now += 60_000;
    expect(shedAt(sut.park('o\na'))).toBeNull();
  });

  it('forgets a line once nothing is parked or started there', () => {
    const call = sut.park('o\na');
    call.started();
    expect(sut.rate('o\na')).toBe(1);
    now += 11_000;
    sut.sweep();
    expect(sut.rate('o\na')).toBe(0);
    expect(sut.parked('o\na')).toBe(0);
  });
});
