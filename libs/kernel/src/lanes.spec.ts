import { acquireCallPlaces, Lanes, originOf } from './lanes';

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

  it('gives freed places to the waiting groups in turn, first come first served within a group', async () => {
    const sut = new Lanes(() => 1);
    const order: string[] = [];
    const gate = deferred();
    const first = sut.run('o', () => gate.promise, 'a');
    const runs = [
      ...['a1', 'a2', 'a3', 'a4'].map((name) => sut.run('o', async () => void order.push(name), 'a')),
      ...['b1', 'b2'].map((name) => sut.run('o', async () => void order.push(name), 'b')),
      sut.run('o', async () => void order.push('c1'), 'c'),
    ];
    expect(sut.waiting('o')).toBe(7);
    gate.resolve();
    await first;
    await Promise.all(runs);
    expect(order).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3', 'a4']);
    expect(sut.active('o')).toBe(0);
    expect(sut.totalWaiting).toBe(0);
  });

  it("keeps one group to its share: the rest stays free for other groups, and the group's waiters go as its own places free", async () => {
    const sut = new Lanes(
      () => 4,
      () => 3,
    );
    const gates = Array.from({ length: 5 }, () => deferred());
    const started: number[] = [];
    const runs = gates.map((gate, i) => sut.run('o', async () => (started.push(i), gate.promise), 'a'));
    await tick();
    expect(started).toEqual([0, 1, 2]);
    expect(sut.active('o')).toBe(3);
    await expect(sut.run('o', async () => 'b', 'b')).resolves.toBe('b');
    gates[0].resolve();
    await runs[0];
    await tick();
    expect(started).toEqual([0, 1, 2, 3]);
    for (const gate of gates) gate.resolve();
    await Promise.all(runs);
    expect(started).toEqual([0, 1, 2, 3, 4]);
  });

  it('takes an aborted waiter out of its line: it rejects with the reason, and the next waiter gets the freed place', async () => {
    const sut = new Lanes(() => 1);
    await sut.acquire('o', 'a');
    const abort = new AbortController();
    const aborted = sut.acquire('o', 'a', abort.signal);
    let next = false;
    const after = sut.acquire('o', 'b').then(() => (next = true));
    expect(sut.waiting('o')).toBe(2);
    abort.abort(new Error('shed'));
    await expect(aborted).rejects.toThrow('shed');
    expect(sut.waiting('o')).toBe(1);
    expect(sut.totalWaiting).toBe(1);
    sut.release('o', 'a');
    await after;
    expect(next).toBe(true);
    expect(sut.active('o')).toBe(1);
    // an abort after the place was given changes nothing
    const late = new AbortController();
    sut.release('o', 'b');
    await sut.acquire('o', 'c', late.signal);
    late.abort();
    expect(sut.active('o')).toBe(1);
    await expect(sut.acquire('o', 'd', late.signal)).rejects.toBeDefined();
  });

  it('aborts a wait for the share of a class holding no origin place, and keeps the counts of share waiters right', async () => {
    const origins = new Lanes(() => 4);
    const classes = new Lanes(
      () => 2,
      () => 1,
    );
    const release = await acquireCallPlaces(origins, 'o', classes, 'first', 'a');
    const abort = new AbortController();
    const waiting = acquireCallPlaces(origins, 'o', classes, 'first', 'a', undefined, abort.signal);
    await tick();
    expect(classes.waitingOnShare).toBe(1);
    expect(origins.active('o')).toBe(1);
    abort.abort(new Error('shed'));
    await expect(waiting).rejects.toThrow('shed');
    expect(classes.waitingOnShare).toBe(0);
    release();
    expect(origins.active('o') + classes.active('first')).toBe(0);
  });

  it('names origins by scheme, host and port', () => {
    expect(originOf('https://Example.com:443/a?b')).toBe('https://example.com');
    expect(originOf('http://example.com:8080/a')).toBe('http://example.com:8080');
  });
});
