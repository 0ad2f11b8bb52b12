import { Injectable } from '@nestjs/common';
import { Clock, EventRetentionPeriod, JobLease, LeasedPurge, UnitOfWork } from '../../../kernel/src';
import { hourOf, MAX_STATS_WINDOW_MS } from '../stats/webhook-stats';
import { WebhookStatsRepository } from '../stats/webhook-stats.repository';
import { EventRepository } from './event.repository';

/**
 * Event retention (CONTRACT §9.6): events whose `created` is more than EVENT_RETENTION_DAYS ago are
 * deleted with their deliveries and attempts, 1000 events per transaction, one process at a time;
 * an event with a delivery still waiting is kept until it settles (EventRepository.deleteCreatedBefore).
 * The webhooks' stats counters go with them: those of hours that no stats window reaches any more.
 */
@Injectable()
export class EventRetentionService {
  static readonly LEASE = 'event-retention';
  static readonly COUNTERS_LEASE = 'stats-retention';
  private readonly purge: LeasedPurge;
  private readonly counters: LeasedPurge;

  constructor(events: EventRepository, stats: WebhookStatsRepository, lease: JobLease, uow: UnitOfWork, clock: Clock, period: EventRetentionPeriod) {
    const deleteBatch = (limit: number) => events.deleteCreatedBefore(Math.floor(period.cutoff(clock.nowMs()).getTime() / 1000), limit);
    this.purge = new LeasedPurge({ lease: EventRetentionService.LEASE, deleteBatch }, lease, uow, clock);
    const countersBefore = () => Math.max(hourOf(clock.nowMs() - MAX_STATS_WINDOW_MS), hourOf(period.cutoff(clock.nowMs()).getTime()));
    this.counters = new LeasedPurge({ lease: EventRetentionService.COUNTERS_LEASE, deleteBatch: (limit) => stats.purgeBefore(countersBefore(), limit) }, lease, uow, clock);
  }

  /** Events purged (null when another process is purging them). */
  async purgeIfFree(shouldStop?: () => boolean): Promise<number | null> {
    const events = await this.purge.purgeIfFree(shouldStop);
    await this.counters.purgeIfFree(shouldStop);
    return events;
  }

  async purgeNow(waitMs?: number): Promise<number> {
    const events = await this.purge.purgeNow(waitMs);
    await this.counters.purgeNow(waitMs);
    return events;
  }
}
