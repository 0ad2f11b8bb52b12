import { Injectable, Logger } from '@nestjs/common';
import { Clock, JobLease, LeasedSweep, SweepSettings, UnitOfWork, WorkItem, WorkQueue } from '../../../kernel/src';
import { DeliveryRepository, ScheduledDelivery } from './delivery.repository';
import { DELIVERY_TOPIC, deliveryWorkItem } from './delivery-work';

/** Waiting deliveries due, unclaimed and untouched for `staleAfterMs` (and since before the queue's oldest waiting item) have lost their queue item: rescheduled with a fresh one. */
@Injectable()
export class DeliverySweeper extends LeasedSweep<ScheduledDelivery> {
  constructor(private readonly deliveries: DeliveryRepository, queue: WorkQueue, uow: UnitOfWork, lease: JobLease, clock: Clock, settings: SweepSettings) {
    super('delivery-sweeper', lease, clock, settings, new Logger('DeliverySweeper'), 'waiting deliveries had lost their queue items: re-queued', uow, queue, DELIVERY_TOPIC);
  }

  protected rescheduleStale(staleBefore: Date, now: Date, limit: number): Promise<ScheduledDelivery[]> {
    return this.deliveries.rescheduleStale(staleBefore, now, limit);
  }

  protected freshItem(delivery: ScheduledDelivery): WorkItem {
    return deliveryWorkItem(delivery.id, delivery.seq, delivery.nextAttemptAt);
  }
}
