import { Injectable, Logger } from '@nestjs/common';
import { Clock, JobLease, LeasedSweep, SweepSettings, UnitOfWork, WorkQueue } from '../../../kernel/src';
import { DeliveryRepository } from './delivery.repository';
import { deliveryWorkItem } from './delivery-work';

/** Waiting deliveries due, unclaimed and untouched for `staleAfterMs` have lost their queue item: rescheduled with a fresh one. */
@Injectable()
export class DeliverySweeper extends LeasedSweep {
  constructor(
    private readonly deliveries: DeliveryRepository,
    private readonly queue: WorkQueue,
    private readonly uow: UnitOfWork,
    lease: JobLease,
    clock: Clock,
    settings: SweepSettings,
  ) {
    super('delivery-sweeper', lease, clock, settings, new Logger('DeliverySweeper'), 'waiting deliveries had lost their queue items: re-queued');
  }

  protected requeueStale(staleBefore: Date, now: Date, limit: number): Promise<number> {
    return this.uow.run(async () => {
      const rows = await this.deliveries.rescheduleStale(staleBefore, now, limit);
      if (rows.length > 0) await this.queue.enqueue(rows.map((r) => deliveryWorkItem(r.id, r.seq, r.nextAttemptAt)));
      return rows.length;
    });
  }
}
