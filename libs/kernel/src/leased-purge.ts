import { Clock } from './clock';
import { DomainError } from './errors';
import { JobLease, newLeaseHolder } from './job-lease';
import { UnitOfWork } from './unit-of-work';

export interface LeasedPurgeOptions {
  /** The lease's name: one process purges at a time. */
  lease: string;
  /** Deletes up to `limit` expired records (one transaction); returns how many. */
  deleteBatch(limit: number): Promise<number>;
  /** Records deleted per transaction (default 1000). */
  batch?: number;
}

/** Lease lifetime, renewed after every batch: a crashed holder frees it after this long. */
const LEASE_TTL_MS = 5 * 60_000;
/** How often a caller that waits for another run checks whether it has ended. */
const WAIT_POLL_MS = 200;

/**
 * A retention purge: bounded batches, one transaction each, so no table is held long, under a
 * database lease so that concurrent runs (every dispatcher schedules them) skip instead of fighting.
 */
export class LeasedPurge {
  private readonly batch: number;

  constructor(
    private readonly options: LeasedPurgeOptions,
    private readonly lease: JobLease,
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
  ) {
    this.batch = options.batch ?? 1000;
  }

  /** The scheduled run: purges unless another process is purging (then null). */
  async purgeIfFree(shouldStop: () => boolean = () => false): Promise<number | null> {
    const holder = newLeaseHolder();
    if (!(await this.take(holder))) return null;
    return this.purgeHolding(holder, shouldStop);
  }

  /** The operator's run: waits up to `waitMs` for a run elsewhere to end, then purges; the count is this run's. */
  async purgeNow(waitMs = 60_000): Promise<number> {
    const holder = newLeaseHolder();
    const deadline = this.clock.nowMs() + waitMs;
    while (!(await this.take(holder))) {
      if (this.clock.nowMs() >= deadline) throw new DomainError('unavailable', `another purge (${this.options.lease}) is running; try again later`);
      await new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MS));
    }
    return this.purgeHolding(holder, () => false);
  }

  private take(holder: string): Promise<boolean> {
    return this.lease.acquire(this.options.lease, holder, this.clock.now(), LEASE_TTL_MS);
  }

  private async purgeHolding(holder: string, shouldStop: () => boolean): Promise<number> {
    let purged = 0;
    try {
      for (;;) {
        const deleted = await this.uow.run(() => this.options.deleteBatch(this.batch));
        purged += deleted;
        if (deleted < this.batch || shouldStop()) break;
        // Renew between batches; a holder that lost its lease (it stalled past the TTL) stops.
        if (!(await this.take(holder))) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      await this.lease.release(this.options.lease, holder).catch(() => undefined);
    }
    return purged;
  }
}

const DAY_MS = 86_400_000;

/** EVENT_RETENTION_DAYS: how long events (with their deliveries and attempts) and automation runs are kept. */
export class EventRetentionPeriod {
  constructor(readonly days: number) {}

  /** The moment before which records are purged now. */
  cutoff(nowMs: number): Date {
    return new Date(nowMs - this.days * DAY_MS);
  }
}
