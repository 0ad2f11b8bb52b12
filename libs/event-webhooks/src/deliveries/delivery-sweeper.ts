import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Clock, JobLease, LeasedSweep, SweepSettings, UnitOfWork, WorkQueue } from '../../../kernel/src';
import { DeliveryRepository } from './delivery.repository';
import { deliveryWorkItem } from './delivery-work';

/**
 * Waiting deliveries that are due, unclaimed and have not been attempted for `staleAfterMs` have
 * lost their queue item: rescheduled (seq bumped) with a fresh one, by a LeasedSweep.
 */
@Injectable()
export class DeliverySweeper implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly sweeper: LeasedSweep;

  constructor(deliveries: DeliveryRepository, queue: WorkQueue, uow: UnitOfWork, lease: JobLease, clock: Clock, settings: SweepSettings) {
    const requeueStale = (staleBefore: Date, now: Date, limit: number) =>
      uow.run(async () => {
        const rows = await deliveries.rescheduleStale(staleBefore, now, limit);
        if (rows.length > 0) await queue.enqueue(rows.map((r) => deliveryWorkItem(r.id, r.seq, r.nextAttemptAt)));
        return rows.length;
      });
    const logger = new Logger('DeliverySweeper');
    this.sweeper = new LeasedSweep({ lease: 'delivery-sweeper', requeueStale }, lease, clock, settings, logger, 'waiting deliveries had lost their queue items: re-queued');
  }

  onApplicationBootstrap(): void {
    this.sweeper.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.sweeper.stop();
  }

  /** One sweep (skipped when another process holds the lease); returns the deliveries re-queued. */
  sweep(): Promise<number> {
    return this.sweeper.sweep();
  }
}
