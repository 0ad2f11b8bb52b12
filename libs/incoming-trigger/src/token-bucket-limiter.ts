export interface RateLimit {
  /** Calls accepted at once from a full bucket. */
  burst: number;
  /** Calls per second the bucket refills with. */
  perSecond: number;
}

export type RateVerdict = { allowed: true } | { allowed: false; retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  atMs: number;
}

/**
 * Token buckets kept in memory, one per key (here: per trigger-token hash), so a flood on one URL
 * cannot starve the others. The map holds at most `maxKeys` buckets, least recently used evicted
 * first (an evicted bucket comes back full, which only ever errs towards letting calls in).
 * Per process: N API processes let N times the rate through.
 */
export class TokenBucketLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly limit: RateLimit,
    private readonly maxKeys = 10_000,
  ) {
    if (!(limit.burst >= 1) || !(limit.perSecond > 0)) throw new RangeError('a rate limit needs burst >= 1 and perSecond > 0');
  }

  take(key: string, nowMs: number): RateVerdict {
    const previous = this.buckets.get(key);
    const elapsedSeconds = previous ? Math.max(0, nowMs - previous.atMs) / 1000 : 0;
    const tokens = previous ? Math.min(this.limit.burst, previous.tokens + elapsedSeconds * this.limit.perSecond) : this.limit.burst;
    const allowed = tokens >= 1;
    this.buckets.delete(key);
    this.buckets.set(key, { tokens: allowed ? tokens - 1 : tokens, atMs: nowMs });
    if (this.buckets.size > this.maxKeys) this.buckets.delete(this.buckets.keys().next().value as string);
    return allowed ? { allowed: true } : { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / this.limit.perSecond)) };
  }

  get size(): number {
    return this.buckets.size;
  }
}
