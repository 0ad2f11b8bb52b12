import { OriginLimiter, originOf } from './origin-limiter';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe(OriginLimiter.name, () => {
  it('lets at most N calls run per origin, others queue in order, other origins are free', async () => {
    const sut = new OriginLimiter(2);
    const gates = [deferred(), deferred(), deferred()];
    const started: number[] = [];
    const runs = gates.map((gate, i) =>
      sut.run('https://a.example', async () => {
        started.push(i);
        await gate.promise;
        return i;
      }),
    );
    const other = sut.run('https://b.example', async () => 'b');
    await expect(other).resolves.toBe('b');
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(sut.inFlight('https://a.example')).toBe(2);
    gates[1].resolve();
    await runs[1];
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1, 2]);
    gates[0].resolve();
    gates[2].resolve();
    await expect(Promise.all(runs)).resolves.toEqual([0, 1, 2]);
    expect(sut.inFlight('https://a.example')).toBe(0);
  });

  it('releases the slot when the work throws', async () => {
    const sut = new OriginLimiter(1);
    await expect(sut.run('o', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(sut.run('o', async () => 'next')).resolves.toBe('next');
  });

  it('names origins by scheme, host and port', () => {
    expect(originOf('https://Example.com:443/a?b')).toBe('https://example.com');
    expect(originOf('http://example.com:8080/a')).toBe('http://example.com:8080');
  });
});
