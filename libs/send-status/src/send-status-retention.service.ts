import { Injectable } from '@nestjs/common';
import { Clock, DomainError, JobLease, newLeaseHolder, UnitOfWork } from '../../kernel/src';
import { SendStatusOptions } from './send-status.options';
import { SendRepository } from './send.repository';

const DAY_MS = 86_400_000;

/**
 * The retention purge (CONTRACT §5, §7): sends created more than SEND_STATUS_RETENTION_DAYS ago
 * are deleted with their history, a bounded batch per transaction so that no table is held long.
 * Every dispatcher schedules it; a database lease lets one process run it at a time.
 */
@Injectable()
export class SendStatusRetentionService {
  static readonly LEASE = 'send-status-retention';
  /** Sends deleted per transaction. */
  static readonly BATCH = 1000;
  /** Lease lifetime, renewed after every batch: a crashed holder frees it after this long. */
  static readonly LEASE_TTL_MS = 5 * 60_000;
  /** How often a caller that waits for another run checks whether it has ended. */
  static readonly WAIT_POLL_MS = 200;

  constructor(
    private readonly sends: SendRepository,
    private readonly lease: JobLease,
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly options: SendStatusOptions,
  ) {}

  /** The creation time before which sends are purged now. */
  cutoff(): Date {
    return new Date(this.clock.nowMs() - this.options.retentionDays * DAY_MS);
  }

  /** The scheduled run: purges unless another process is purging (then null). */
  async purgeIfFree(shouldStop: () => boolean = () => false): Promise<number | null> {
    const holder = newLeaseHolder();
    if (!(await this.take(holder))) return null;
    return this.purgeHolding(holder, shouldStop);
  }

  /**
   * The operator's run: waits up to `waitMs` for a run elsewhere to end, then purges. The count
   * is what this run deleted.
   */
  async purgeNow(waitMs = 60_000): Promise<number> {
    const holder = newLeaseHolder();
    const deadline = this.clock.nowMs() + waitMs;
    while (!(await this.take(holder))) {
      if (this.clock.nowMs() >= deadline) throw new DomainError('unavailable', 'another send-status purge is running; try again later');
      await sleep(SendStatusRetentionService.WAIT_POLL_MS);
    }
    return this.purgeHolding(holder, () => false);
  }

  private take(holder: string): Promise<boolean> {
    return this.lease.acquire(SendStatusRetentionService.LEASE, holder, this.clock.now(), SendStatusRetentionService.LEASE_TTL_MS);
  }

  private async purgeHolding(holder: string, shouldStop: () => boolean): Promise<number> {
    const { BATCH } = SendStatusRetentionService;
    const cutoff = this.cutoff();
    let purged = 0;
    try {
      for (;;) {
        const deleted = await this.uow.run(() => this.sends.deleteCreatedBefore(cutoff, BATCH));
        purged += deleted;
        if (deleted < BATCH || shouldStop()) break;
        // Renew between batches; a holder that lost its lease (it stalled past the TTL) stops.
        if (!(await this.take(holder))) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      await this.lease.release(SendStatusRetentionService.LEASE, holder).catch(() => undefined);
    }
    return purged;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
