import { DispatchLanes } from './lanes';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const tick = () => new Promise((r) => setImmediate(r));

describe(DispatchLanes.name, () => {
  it('keeps a saturated origin waiting in its own lane: it never holds the places other origins need', async () => {
    const sut = new DispatchLanes({ perOrigin: 2, firstAttempts: 3, retries: 1 });
    const slow = deferred();
    const slowRuns = Array.from({ length: 50 }, () => sut.run('https://slow.example', 'first', 'wh_slow', '1', () => slow.promise));
    await tick();
    expect(sut.inFlight('https://slow.example')).toBe(2);
    // 48 more wait in the slow lane, holding no first-attempt place: another origin goes at once.
    await expect(sut.run('https://fast.example', 'first', 'wh_fast', '2', async () => 'fast')).resolves.toBe('fast');
    slow.resolve();
    await Promise.all(slowRuns);
  });

  it("lets another account's call to a shared origin go at the next freed place, not behind one account's backlog there", async () => {
    const sut = new DispatchLanes({ perOrigin: 2, firstAttempts: 100, retries: 50 });
    const hanging = deferred();
    const gates = [deferred(), deferred()];
    const held = gates.map((gate) => sut.run('https://hooks.example', 'first', 'wh_s1', 's', () => gate.promise));
    const backlog = Array.from({ length: 50 }, (_, i) => sut.run('https://hooks.example', 'first', `wh_s${i}`, 's', () => hanging.promise));
    let healthy = false;
    const other = sut.run('https://hooks.example', 'first', 'wh_h', 'h', async () => void (healthy = true));
    await tick();
    expect(healthy).toBe(false);
    gates[0].resolve();
    await held[0];
    await other;
    expect(healthy).toBe(true);
    gates[1].resolve();
    hanging.resolve();
    await Promise.all([...held, ...backlog]);
  });

  it("keeps a quarter of a class's places from any one account: another account's first attempt goes at once", async () => {
    const sut = new DispatchLanes({ perOrigin: 10, firstAttempts: 8, retries: 4 });
    const hanging = deferred();
    // One account's calls hang on four origins: it holds 6 of the 8 first-attempt places, the rest wait.
    const runs = Array.from({ length: 40 }, (_, i) => sut.run(`https://dead${i % 4}.example`, 'first', `wh_${i % 4}`, 's', () => hanging.promise));
    await tick();
    // (the waiting ones hold no origin place either)
    expect([0, 1, 2, 3].reduce((sum, i) => sum + sut.inFlight(`https://dead${i}.example`), 0)).toBe(6);
    await expect(sut.run('https://ok.example', 'first', 'wh_ok', 'h', async () => 'at once')).resolves.toBe('at once');
    // Its 34 calls beyond its share are parked (no free place would start them): the dispatcher takes other work meanwhile.
    expect(sut.parked).toBe(34);
    hanging.resolve();
    await Promise.all(runs);
  });

  it("holds no origin place while its account waits for its share of a class: another account's call to that origin goes at once", async () => {
    const sut = new DispatchLanes({ perOrigin: 4, firstAttempts: 8, retries: 4 });
    const hanging = deferred();
    // 16 origins, 7 calls each: the account may hold 6 of the 8 first-attempt places; its other calls wait
    const runs = Array.from({ length: 7 * 16 }, (_, i) => sut.run(`https://h${i % 16}.example`, 'first', `wh_a${i % 16}`, 'a', () => hanging.promise));
    await tick();
    expect(Array.from({ length: 16 }, (_, o) => sut.inFlight(`https://h${o}.example`)).reduce((a, b) => a + b)).toBe(6);
    expect(sut.parked).toBe(7 * 16 - 6);
    await expect(sut.run('https://h15.example', 'first', 'wh_b', 'b', async () => 'at once')).resolves.toBe('at once');
    hanging.resolve();
    await Promise.all(runs);
    expect(sut.parked).toBe(0);
  });

  it('keeps retries apart from first attempts', async () => {
    const sut = new DispatchLanes({ perOrigin: 10, firstAttempts: 1, retries: 1 });
    const retry = deferred();
    const held = sut.run('https://failing.example', 'retry', 'wh_failing', '1', () => retry.promise);
    const queuedRetry = sut.run('https://failing.example', 'retry', 'wh_failing', '1', async () => 'second retry');
    await tick();
    await expect(sut.run('https://other.example', 'first', 'wh_other', '1', async () => 'first')).resolves.toBe('first');
    retry.resolve();
    await held;
    await expect(queuedRetry).resolves.toBe('second retry');
  });

  it('pauses an endpoint that asked to slow down, and only that endpoint: its calls hold no place of their origin', async () => {
    let now = 1_000;
    const sut = new DispatchLanes({ perOrigin: 1, firstAttempts: 5, retries: 5 }, () => now);
    sut.pause('wh_busy', now + 40);
    const startedAt: number[] = [];
    const paused = Array.from({ length: 3 }, () => sut.run('https://shared.example', 'first', 'wh_busy', '1', async () => startedAt.push(Date.now())));
    // Another endpoint on the same origin (one place per origin) goes at once, as does another origin.
    await expect(sut.run('https://shared.example', 'first', 'wh_neighbour', '1', async () => 'neighbour')).resolves.toBe('neighbour');
    await expect(sut.run('https://other.example', 'first', 'wh_other', '1', async () => 'other')).resolves.toBe('other');
    expect(startedAt).toEqual([]);
    const before = Date.now();
    now += 40;
    await Promise.all(paused);
    expect(startedAt).toHaveLength(3);
    expect(startedAt[0] - before).toBeGreaterThanOrEqual(30);
  });

  it('lets the calls waiting out a pause go at once when it stops waiting (shutdown), and later ones do not wait', async () => {
    const sut = new DispatchLanes({ perOrigin: 4, firstAttempts: 4, retries: 4 });
    // (a pause within the horizon: its calls wait in memory, a longer one would shed them at once)
    sut.pause('wh_busy', Date.now() + 4_000);
    const waiting = Array.from({ length: 3 }, () => sut.run('https://busy.example', 'first', 'wh_busy', '1', async () => 'ran'));
    await tick();
    expect(sut.parked).toBe(3);
    const stoppedAt = Date.now();
    sut.stopWaiting();
    await expect(Promise.all(waiting)).resolves.toEqual(['ran', 'ran', 'ran']);
    await expect(sut.run('https://busy.example', 'first', 'wh_busy', '1', async () => 'later')).resolves.toBe('later');
    expect(Date.now() - stoppedAt).toBeLessThan(1_000);
    expect(sut.parked).toBe(0);
  });

  it('sheds the calls of a stalled line back to the queue, spaced, and keeps the calls it started', async () => {
    const sut = new DispatchLanes({ perOrigin: 2, firstAttempts: 10, retries: 10 }, Date.now, { horizonMs: 2_000, minParkedMs: 100, sweepEveryMs: 20, slowCallMs: 500, idleRate: 10, maxReturnMs: 60_000 });
    const hanging = deferred();
    const startedAt = Date.now();
    const runs = Array.from({ length: 50 }, () => sut.run('https://slow.example', 'first', 'wh_slow', 's', async () => (await hanging.promise, 'called' as const)));
    // 2 calls hang; the 48 others waited 100 ms and nothing started meanwhile: all of them go back.
    const shed = (await Promise.all(runs.slice(2))).map((r) => (r === 'called' ? null : r.at.getTime() - startedAt));
    expect(shed.every((at) => at !== null && at >= 1_000)).toBe(true);
    expect(sut.parked).toBe(0);
    // spaced at the line's rate as measured when each went (the newest first), never two together
    const returns = (shed as number[]).sort((a, b) => a - b);
    expect(returns.slice(1).every((at, i) => at - returns[i] >= 50)).toBe(true);
    hanging.resolve();
    await expect(Promise.all(runs.slice(0, 2))).resolves.toEqual(['called', 'called']);
    sut.stopWaiting();
  });

  it('sheds the calls waiting out a long pause, due when it ends', async () => {
    const sut = new DispatchLanes({ perOrigin: 2, firstAttempts: 10, retries: 10 }, Date.now, { horizonMs: 2_000, minParkedMs: 0, sweepEveryMs: 20, slowCallMs: 500, idleRate: 10, maxReturnMs: 60_000 });
    const pauseEnd = Date.now() + 60_000;
    sut.pause('wh_paused', pauseEnd);
    const runs = Array.from({ length: 3 }, () => sut.run('https://paused.example', 'first', 'wh_paused', 's', async () => 'called' as const));
    const results = await Promise.all(runs);
    expect(results.map((r) => (r === 'called' ? r : r.at.getTime() - pauseEnd))).toEqual([0, 100, 200]);
    expect(sut.parked).toBe(0);
    sut.stopWaiting();
  });
});
