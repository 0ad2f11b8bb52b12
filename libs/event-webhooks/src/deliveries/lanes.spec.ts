import { DispatchLanes, Lanes, originOf } from './lanes';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const tick = () => new Promise((r) => setImmediate(r));

describe(Lanes.name, () => {
  it('lets at most N holders run per key, others queue in order, other keys are free', async () => {
    const sut = new Lanes(() => 2);
    const gates = [deferred(), deferred(), deferred()];
    const started: number[] = [];
    const runs = gates.map((gate, i) =>
      sut.run('https://a.example', async () => {
        started.push(i);
        await gate.promise;
        return i;
      }),
    );
    await expect(sut.run('https://b.example', async () => 'b')).resolves.toBe('b');
    expect(started).toEqual([0, 1]);
    expect(sut.active('https://a.example')).toBe(2);
    expect(sut.waiting('https://a.example')).toBe(1);
    gates[1].resolve();
    await runs[1];
    await tick();
    expect(started).toEqual([0, 1, 2]);
    gates[0].resolve();
    gates[2].resolve();
    await expect(Promise.all(runs)).resolves.toEqual([0, 1, 2]);
    expect(sut.active('https://a.example')).toBe(0);
  });

  it('releases the place when the work throws', async () => {
    const sut = new Lanes(() => 1);
    await expect(sut.run('o', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(sut.run('o', async () => 'next')).resolves.toBe('next');
  });
});

describe(DispatchLanes.name, () => {
  it('keeps a saturated origin waiting in its own lane: it never holds the places other origins need', async () => {
    const sut = new DispatchLanes({ perOrigin: 2, firstAttempts: 3, retries: 1 });
    const slow = deferred();
    const slowRuns = Array.from({ length: 50 }, () => sut.run('https://slow.example', 'first', 'wh_slow', () => slow.promise));
    await tick();
    expect(sut.inFlight('https://slow.example')).toBe(2);
    // 48 more wait in the slow lane, holding no first-attempt place: another origin goes at once.
    await expect(sut.run('https://fast.example', 'first', 'wh_fast', async () => 'fast')).resolves.toBe('fast');
    slow.resolve();
    await Promise.all(slowRuns);
  });

  it('keeps retries apart from first attempts', async () => {
    const sut = new DispatchLanes({ perOrigin: 10, firstAttempts: 1, retries: 1 });
    const retry = deferred();
    const held = sut.run('https://failing.example', 'retry', 'wh_failing', () => retry.promise);
    const queuedRetry = sut.run('https://failing.example', 'retry', 'wh_failing', async () => 'second retry');
    await tick();
    await expect(sut.run('https://other.example', 'first', 'wh_other', async () => 'first')).resolves.toBe('first');
    retry.resolve();
    await held;
    await expect(queuedRetry).resolves.toBe('second retry');
  });

  it('pauses an endpoint that asked to slow down, and only that endpoint: its calls hold no place of their origin', async () => {
    let now = 1_000;
    const sut = new DispatchLanes({ perOrigin: 1, firstAttempts: 5, retries: 5 }, () => now);
    sut.pause('wh_busy', now + 40);
    const startedAt: number[] = [];
    const paused = Array.from({ length: 3 }, () => sut.run('https://shared.example', 'first', 'wh_busy', async () => startedAt.push(Date.now())));
    // Another endpoint on the same origin (one place per origin) goes at once, as does another origin.
    await expect(sut.run('https://shared.example', 'first', 'wh_neighbour', async () => 'neighbour')).resolves.toBe('neighbour');
    await expect(sut.run('https://other.example', 'first', 'wh_other', async () => 'other')).resolves.toBe('other');
    expect(startedAt).toEqual([]);
    const before = Date.now();
    now += 40;
    await Promise.all(paused);
    expect(startedAt).toHaveLength(3);
    expect(startedAt[0] - before).toBeGreaterThanOrEqual(30);
  });

  it('lets the calls waiting out a pause go at once when it stops waiting (shutdown), and later ones do not wait', async () => {
    const sut = new DispatchLanes({ perOrigin: 4, firstAttempts: 4, retries: 4 });
    sut.pause('wh_busy', Date.now() + 60_000);
    const waiting = Array.from({ length: 3 }, () => sut.run('https://busy.example', 'first', 'wh_busy', async () => 'ran'));
    await tick();
    expect(sut.parked).toBe(3);
    const stoppedAt = Date.now();
    sut.stopWaiting();
    await expect(Promise.all(waiting)).resolves.toEqual(['ran', 'ran', 'ran']);
    await expect(sut.run('https://busy.example', 'first', 'wh_busy', async () => 'later')).resolves.toBe('later');
    expect(Date.now() - stoppedAt).toBeLessThan(1_000);
    expect(sut.parked).toBe(0);
  });

  it('names origins by scheme, host and port', () => {
    expect(originOf('https://Example.com:443/a?b')).toBe('https://example.com');
    expect(originOf('http://example.com:8080/a')).toBe('http://example.com:8080');
  });
});
