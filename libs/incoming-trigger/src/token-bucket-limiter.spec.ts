import { TokenBucketLimiter } from './token-bucket-limiter';

describe(TokenBucketLimiter.name, () => {
  it('lets a burst through, then refuses with the wait until the next token', () => {
    const sut = new TokenBucketLimiter({ burst: 3, perSecond: 0.5 });
    expect([0, 0, 0].map((t) => sut.take('a', t).allowed)).toEqual([true, true, true]);
    expect(sut.take('a', 0)).toEqual({ allowed: false, retryAfterSeconds: 2 });
    expect(sut.take('a', 1000)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(sut.take('a', 2000)).toEqual({ allowed: true });
    expect(sut.take('a', 2000).allowed).toBe(false);
  });

  it('refills at the rate up to the burst, not beyond', () => {
    const sut = new TokenBucketLimiter({ burst: 2, perSecond: 10 });
    sut.take('a', 0);
    sut.take('a', 0);
    expect(sut.take('a', 0).allowed).toBe(false);
    expect(sut.take('a', 100).allowed).toBe(true);
    const later = 60_000;
    expect([later, later, later].map((t) => sut.take('a', t).allowed)).toEqual([true, true, false]);
  });

  it('keeps one bucket per key, so a flood on one key leaves the others alone', () => {
    const sut = new TokenBucketLimiter({ burst: 1, perSecond: 1 });
    expect(sut.take('flood', 0).allowed).toBe(true);
    for (let i = 0; i < 100; i++) expect(sut.take('flood', 0).allowed).toBe(false);
    expect(sut.take('quiet', 0).allowed).toBe(true);
  });

  it('holds at most maxKeys buckets, evicting the least recently used', () => {
    const sut = new TokenBucketLimiter({ burst: 1, perSecond: 0.001 }, 2);
    sut.take('a', 0);
    sut.take('b', 0);
    sut.take('a', 0);
    sut.take('c', 0);
    expect(sut.size).toBe(2);
    expect(sut.take('a', 0).allowed).toBe(false);
    expect(sut.take('b', 0).allowed).toBe(true);
  });

  it('refuses a limit that would never let anything through', () => {
    expect(() => new TokenBucketLimiter({ burst: 0, perSecond: 1 })).toThrow(RangeError);
    expect(() => new TokenBucketLimiter({ burst: 1, perSecond: 0 })).toThrow(RangeError);
  });
});
