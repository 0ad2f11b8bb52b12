import { createServer } from 'node:net';
import { cpus, totalmem } from 'node:os';

/** Small shared pieces of the benchmark harness: scale, clocks, percentiles, free ports. */

/** BENCH_SCALE (default 1) shrinks every count and duration for quick runs; `min` keeps a figure meaningful. */
export const SCALE = benchScale(process.env.BENCH_SCALE);

function benchScale(text: string | undefined): number {
  const value = text === undefined || text.trim() === '' ? 1 : Number(text);
  if (!(value > 0 && value <= 10)) throw new Error(`BENCH_SCALE: got "${text}", expected a number above 0 and at most 10 (e.g. 0.1)`);
  return value;
}

export function scaled(count: number, min = 1): number {
  return Math.max(min, Math.round(count * SCALE));
}

/** Wall-clock milliseconds with sub-millisecond precision, comparable across processes of one machine. */
export function epochMs(): number {
  return performance.timeOrigin + performance.now();
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The value at percentile `p` of ascending `sorted` (nearest rank); NaN when empty. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export const round = (value: number, digits = 1) => (Number.isFinite(value) ? Number(value.toFixed(digits)) : value);

export function machineLine(): string {
  return `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
}

/** A TCP port that was free a moment ago (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Polls `probe` every `everyMs` until it returns true; false when `timeoutMs` passed first. */
export async function pollUntil(probe: () => Promise<boolean> | boolean, timeoutMs: number, everyMs = 200): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await probe()) return true;
    if (Date.now() > deadline) return false;
    await sleep(everyMs);
  }
}
