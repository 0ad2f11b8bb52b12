import { Attempt, AttemptOutcome, Delivery, DeliveryStatus } from './delivery';

export type NewDelivery = Omit<Delivery, 'attempts' | 'claimedUntil'>;

export interface DeliveryPageQuery {
  status?: DeliveryStatus;
  limit: number;
  /** Only deliveries with a smaller id (ids sort by creation time). */
  beforeId?: string;
}

export interface ScheduledDelivery {
  id: string;
  seq: number;
  nextAttemptAt: Date;
}

/** A delivery due for an attempt, with the exact body stored for it at intake. */
export interface DispatchJob {
  delivery: Delivery;
  body: string;
}

/**
 * Deliveries of events to webhooks. Every change of state is a conditional statement on the row
 * (status, seq, claim), so that concurrent dispatchers, retries and recovers cannot both win.
 */
export abstract class DeliveryRepository {
  /** Multi-row inserts (fan-out of a batch). */
  abstract insertMany(deliveries: NewDelivery[]): Promise<void>;
  abstract findForWebhook(webhookId: string, id: string): Promise<Delivery | null>;
  /** Newest first. */
  abstract listForWebhook(webhookId: string, query: DeliveryPageQuery): Promise<Delivery[]>;
  abstract findForDispatch(id: string): Promise<DispatchJob | null>;
  /**
   * Takes the lease of a waiting, due, unclaimed delivery at `seq`: the guard that keeps two
   * dispatchers from attempting the same delivery at once. False when someone else won.
   */
  abstract claim(id: string, seq: number, now: Date, leaseUntil: Date, token: string): Promise<boolean>;
  /**
   * Stores the attempts (those read with the claimed seq, plus the new one: nobody else can add one
   * while the claim holds) and the outcome, releasing the claim and bumping seq; false when the claim was lost.
   */
  abstract recordAttempt(id: string, claimToken: string, attempts: Attempt[], outcome: AttemptOutcome): Promise<boolean>;
  /** An unclaimed waiting delivery at `seq` to a final status (its webhook was disabled or deleted meanwhile). */
  abstract settle(id: string, seq: number, status: 'skipped' | 'cancelled', now: Date): Promise<boolean>;
  /** Waiting deliveries of the webhook to `status`; returns how many. */
  abstract settleWaiting(webhookId: string, status: 'skipped' | 'cancelled'): Promise<number>;
  /**
   * One more attempt now: a final delivery becomes pending at `retryStepIfFinal`; a waiting one is
   * brought forward. Null when it is being attempted right now (or is cancelled).
   */
  abstract scheduleNow(id: string, now: Date, retryStepIfFinal: number): Promise<ScheduledDelivery | null>;
  /**
   * Up to `limit` failed or skipped deliveries of the webhook created at or after `since`, with an id
   * above `afterId`, back to pending now with a fresh retry schedule. Returns them in id order.
   */
  abstract recover(webhookId: string, since: Date, afterId: string, now: Date, limit: number): Promise<ScheduledDelivery[]>;
}
