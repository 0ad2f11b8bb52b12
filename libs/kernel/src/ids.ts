import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * Time-sortable opaque ids: `<prefix>_` + 10 chars of millisecond time + 16 chars of randomness
 * (ULID layout, lower-case Crockford base32). Sorting ids sorts by creation time, which the
 * cursor pagination relies on.
 */
export type IdPrefix = 'wh' | 'evt' | 'tgt' | 'wf' | 'run' | 'del' | 'msg' | 'key' | 'wrk';

export function newId(prefix: IdPrefix, nowMs: number = Date.now()): string {
  return `${prefix}_${encodeTime(nowMs)}${encodeRandom()}`;
}

function encodeTime(ms: number): string {
  let out = '';
  let t = ms;
  for (let i = 0; i < 10; i++) {
    out = CROCKFORD[t % 32] + out;
    t = Math.floor(t / 32);
  }
  return out;
}

/** Random bytes drawn 4 KiB at a time: one randomBytes call per id cost more than the rest of newId. */
const POOL_SIZE = 4096;
const RANDOM_BYTES_PER_ID = 10;
let pool = Buffer.alloc(0);
let poolOffset = 0;

function takeRandomBytes(): Buffer {
  if (poolOffset + RANDOM_BYTES_PER_ID > pool.length) {
    pool = randomBytes(POOL_SIZE);
    poolOffset = 0;
  }
  poolOffset += RANDOM_BYTES_PER_ID;
  return pool.subarray(poolOffset - RANDOM_BYTES_PER_ID, poolOffset);
}

function encodeRandom(): string {
  const bytes = takeRandomBytes();
  let out = '';
  let acc = 0;
  let bits = 0;
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += CROCKFORD[(acc >> (bits - 5)) & 31];
      bits -= 5;
    }
    acc &= (1 << bits) - 1;
  }
  return out;
}

/** True when `id` has the prefix and the shape newId produces (cheap check before a lookup). */
export function looksLikeId(prefix: IdPrefix, id: string): boolean {
  return id.length === prefix.length + 27 && id.startsWith(`${prefix}_`) && /^[0-9a-z]+$/.test(id.slice(prefix.length + 1));
}

/** The lowest id newId can make at `ms` or later: an id sorts at or after it exactly when it was made at or after `ms`. */
export function idFloorAt(prefix: IdPrefix, ms: number): string {
  return `${prefix}_${encodeTime(ms)}`;
}
