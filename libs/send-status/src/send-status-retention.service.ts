import { Injectable } from '@nestjs/common';
import { Clock, JobLease, LeasedPurge, UnitOfWork } from '../../kernel/src';
import { SendStatusSettings } from './send-status.settings';
import { SendRepository } from './send.repository';

const DAY_MS = 86_400_000;

/**
 * The send-status retention purge (CONTRACT §5, §7): sends created more than
 * SEND_STATUS_RETENTION_DAYS ago are deleted with their history, 1000 per transaction, under a lease.
 */
@Injectable()
export class SendStatusRetentionService {
  static readonly LEASE = 'send-status-retention';
  private readonly purge: LeasedPurge;

  constructor(
    private readonly sends: SendRepository,
    lease: JobLease,
    uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly options: SendStatusSettings,
  ) {
    this.purge = new LeasedPurge({ lease: SendStatusRetentionService.LEASE, deleteBatch: (limit) => this.sends.deleteCreatedBefore(this.cutoff(), limit) }, lease, uow, clock);
  }

  /** The creation time before which sends are purged now. */
  cutoff(): Date {
    return new Date(this.clock.nowMs() - this.options.retentionDays * DAY_MS);
  }

  /** The scheduled run: purges unless another process is purging (then null). */
  purgeIfFree(shouldStop?: () => boolean): Promise<number | null> {
    return this.purge.purgeIfFree(shouldStop);
  }

  /** The operator's run: waits up to `waitMs` for a run elsewhere to end, then purges. */
  purgeNow(waitMs?: number): Promise<number> {
    return this.purge.purgeNow(waitMs);
  }
}
