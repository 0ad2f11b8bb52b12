/**
 * At most `perOrigin` calls in flight to one receiver origin (scheme + host + port) in this
 * process, so that one slow receiver cannot take every worker slot's connection at once and
 * many deliveries to one customer do not hammer it. Waiters are served first in, first out.
 */
export class OriginLimiter {
  private readonly origins = new Map<string, { active: number; waiting: Array<() => void> }>();

  constructor(private readonly perOrigin: number) {
    if (!Number.isInteger(perOrigin) || perOrigin < 1) throw new RangeError(`perOrigin must be a positive integer, got ${perOrigin}`);
  }

  async run<T>(origin: string, work: () => Promise<T>): Promise<T> {
    await this.acquire(origin);
    try {
      return await work();
    } finally {
      this.release(origin);
    }
  }

  /** Calls in flight to `origin` now (for tests and metrics). */
  inFlight(origin: string): number {
    return this.origins.get(origin)?.active ?? 0;
  }

  private acquire(origin: string): Promise<void> {
    const slot = this.origins.get(origin) ?? { active: 0, waiting: [] };
    this.origins.set(origin, slot);
    if (slot.active < this.perOrigin) {
      slot.active++;
      return Promise.resolve();
    }
    return new Promise((resolve) => slot.waiting.push(resolve));
  }

  private release(origin: string): void {
    const slot = this.origins.get(origin)!;
    const next = slot.waiting.shift();
    if (next) {
      next(); // the slot passes straight to the next waiter
      return;
    }
    slot.active--;
    if (slot.active === 0) this.origins.delete(origin);
  }
}

export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
