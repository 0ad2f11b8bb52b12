import { Injectable } from '@nestjs/common';
import { Clock, EventRetentionPeriod, JobLease, LeasedPurge, UnitOfWork } from '../../kernel/src';
import { RunRepository } from './automations.repository';

/** Run retention (CONTRACT §9.6): runs started more than EVENT_RETENTION_DAYS ago are deleted once finished, 1000 per transaction. */
@Injectable()
export class RunRetentionService {
  static readonly LEASE = 'run-retention';
  private readonly purge: LeasedPurge;

  constructor(runs: RunRepository, lease: JobLease, uow: UnitOfWork, clock: Clock, period: EventRetentionPeriod) {
    this.purge = new LeasedPurge({ lease: RunRetentionService.LEASE, deleteBatch: (limit) => runs.deleteStartedBefore(period.cutoff(clock.nowMs()), limit) }, lease, uow, clock);
  }

  purgeIfFree(shouldStop?: () => boolean): Promise<number | null> {
    return this.purge.purgeIfFree(shouldStop);
  }

  purgeNow(waitMs?: number): Promise<number> {
    return this.purge.purgeNow(waitMs);
  }
}
