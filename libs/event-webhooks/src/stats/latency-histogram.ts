/**
 * Attempt durations kept as counts per logarithmic bucket: 8 buckets per doubling, so a
 * percentile read back is within about 4.5 % of the true duration, whatever the number of
 * attempts. Bucket 0 holds durations under 1 ms; bucket b >= 1 holds [2^((b-1)/8), 2^(b/8)) ms.
 */
const PER_DOUBLING = 8;
/** 2^(255/8) ms is about 100 days: every duration fits. */
const LAST_BUCKET = 255;

export function latencyBucket(durationMs: number): number {
  if (!(durationMs >= 1)) return 0;
  return Math.min(LAST_BUCKET, 1 + Math.floor(Math.log2(durationMs) * PER_DOUBLING));
}

/** The duration a bucket stands for: the geometric middle of its range, in whole milliseconds. */
export function bucketDurationMs(bucket: number): number {
  return bucket === 0 ? 0 : Math.round(2 ** ((bucket - 0.5) / PER_DOUBLING));
}

/** The nearest-rank percentile (`q` from 0 to 1) of counts per bucket; null when there are none. */
export function percentileMs(counts: ReadonlyMap<number, number>, q: number): number | null {
  const total = [...counts.values()].reduce((sum, n) => sum + n, 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (const bucket of [...counts.keys()].sort((a, b) => a - b)) {
    seen += counts.get(bucket)!;
    if (seen >= rank) return bucketDurationMs(bucket);
  }
  return null;
}
