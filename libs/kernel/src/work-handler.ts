import { ReceivedWork, WorkOutcome } from './work-queue';

/**
 * A consumer of one queue topic. Domain libs implement these; the dispatcher app subscribes
 * each one to the queue. Handlers must be idempotent: delivery is at-least-once.
 */
export abstract class WorkHandler {
  abstract readonly topic: string;
  /** Items of the topic this process holds at once (the queue's prefetch); the dispatcher's default when absent. */
  readonly maxInFlight?: number;
  /** How many more items to take now (see ConsumeOptions.spareCapacity); unlimited when absent. */
  spareCapacity?(): number;
  /** The item's handler threw too often (ConsumeOptions.giveUp): settle what it names for good. */
  giveUp?(work: ReceivedWork, reason: string): Promise<void>;
  /** The handler threw; the item comes back at `at` (ConsumeOptions.postpone). */
  postpone?(work: ReceivedWork, at: Date): Promise<void>;
  abstract handle(work: ReceivedWork): Promise<WorkOutcome>;
  /**
   * Shutdown begins: the worker host calls this before it stops taking items and gives in-flight
   * work the grace. Items handed over that have not started their outside call must not start it
   * now: they answer `retry` due now, so the queue hands them to another worker at once.
   */
  stop?(): void;
}

