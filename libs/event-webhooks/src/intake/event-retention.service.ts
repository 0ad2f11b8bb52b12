import { Injectable } from '@nestjs/common';
import { Clock, EventRetentionPeriod, JobLease, LeasedPurge, UnitOfWork } from '../../../kernel/src';
import { EventRepository } from './event.repository';

/**
 * Event retention (CONTRACT §9.6): events whose `created` is more than EVENT_RETENTION_DAYS ago are
 * deleted with their deliveries and attempts, 1000 events per transaction, one process at a time;
 * an event with a delivery still waiting is kept until it settles (EventRepository.deleteCreatedBefore).
 */
@Injectable()
export class EventRetentionService {
  static readonly LEASE = 'event-retention';
  private readonly purge: LeasedPurge;

  constructor(events: EventRepository, lease: JobLease, uow: UnitOfWork, clock: Clock, period: EventRetentionPeriod) {
    const deleteBatch = (limit: number) => events.deleteCreatedBefore(Math.floor(period.cutoff(clock.nowMs()).getTime() / 1000), limit);
    this.purge = new LeasedPurge({ lease: EventRetentionService.LEASE, deleteBatch }, lease, uow, clock);
  }

  purgeIfFree(shouldStop?: () => boolean): Promise<number | null> {
    return this.purge.purgeIfFree(shouldStop);
  }

  purgeNow(waitMs?: number): Promise<number> {
    return this.purge.purgeNow(waitMs);
  }
}
