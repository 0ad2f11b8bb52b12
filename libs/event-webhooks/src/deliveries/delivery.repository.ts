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

/** What a dispatcher needs of a delivery: the row without its attempts. */
export type DispatchDelivery = Omit<Delivery, 'attempts'>;

/**
 * A delivery due for an attempt, as read when its queue item arrives. Its body comes with the claim
 * (WonClaim): a delivery that waits in its lanes, or goes back to the queue, never loads it.
 */
export interface DispatchJob {
  delivery: DispatchDelivery;
  /** Changes whenever the webhook's settings, secrets or state change (cache key); null when the webhook is gone. */
  webhookVersion: number | null;
  /** The webhook's pause (Webhook.pausedUntil), read with the delivery: a pause another dispatcher met holds here too. */
  webhookPausedUntil: Date | null;
}

export interface Postponement {
  id: string;
  seq: number;
  at: Date;
}

export interface WonClaim {
  /** The delivery as claimed: a queue item that knew its lane was claimed without being read first. */
  delivery: DispatchDelivery;
  /** The exact body stored for the delivery at intake. */
  body: string;
  /** The webhook's version (see DispatchJob.webhookVersion); null when the webhook is gone. */
  webhookVersion: number | null;
  webhookPausedUntil: Date | null;
}

export interface ClaimRequest {
  id: string;
  seq: number;
}

/** A claim as the worker took it: its token, and the delivery's seq it was taken at. */
export interface HeldClaim {
  id: string;
  token: string;
  seq: number;
}

/** One attempt to store with the delivery's new state; `attemptNo` counts from 1. */
export interface RecordedAttempt {
  deliveryId: string;
  webhookId: string;
  accountId: number;
  attemptNo: number;
  /** When the delivery was created (the hour its settled counter is kept by). */
  deliveryCreatedAt: Date;
  /** Its status as heldClaims found it in this transaction: what `outcome` moves it from. */
  formerStatus: DeliveryStatus;
  attempt: Attempt;
  outcome: AttemptOutcome;
}

/**
 * Deliveries of events to webhooks. Every change of state is a conditional statement on the row
 * (status, seq, claim), so that concurrent dispatchers, retries and recovers cannot both win.
 * Dispatch works on batches: one read, one claim and one write serve many deliveries.
 */
/** Deliveries still owed an attempt, for the operators' gauges. */
export interface WaitingSummary {
  pending: number;
  retrying: number;
  /** When the longest-waiting of them became due (its next attempt, or its creation); null when none. */
  oldestDueAt: Date | null;
}

export abstract class DeliveryRepository {
  /** Multi-row inserts (fan-out of a batch). */
  abstract insertMany(deliveries: NewDelivery[]): Promise<void>;
  abstract findForWebhook(webhookId: string, id: string): Promise<Delivery | null>;
  /** Newest first, each with its attempts. */
  abstract listForWebhook(webhookId: string, query: DeliveryPageQuery): Promise<Delivery[]>;
  /** The deliveries of one event of the account (one per webhook it went to), by webhook id (their creation order), with their attempts. */
  abstract listForEvent(accountId: number, eventId: string): Promise<Delivery[]>;
  /** The deliveries among `ids` that exist (without their bodies), in any order. */
  abstract findForDispatch(ids: string[]): Promise<DispatchJob[]>;
  /**
   * Takes the lease of each waiting, due, unclaimed delivery at its `seq`: the guard that keeps two
   * dispatchers from attempting the same delivery at once. Returns the ids this call won, each
   * with its body and its webhook's version and pause as of the claim (a pause another dispatcher
   * recorded while this delivery waited in its lanes). A delivery whose event is gone is not won.
   */
  abstract claimMany(claims: ClaimRequest[], now: Date, leaseUntil: Date, token: string): Promise<Map<string, WonClaim>>;
  /** Gives an unused claim back (its webhook turned out paused), the delivery due at `at`; false if the claim was no longer held. */
  abstract releaseClaim(id: string, token: string, at: Date): Promise<boolean>;
  /**
   * Inside the recording transaction: the claims among `claims` still held (locked until commit, so
   * nobody can take them between this check and the write). A claim is held only while the row has
   * both its token and the seq it was taken at: a delivery rescheduled after the lease ran out (a
   * manual retry, the sweeper, a recover: each bumps seq and may leave the token) is no longer the
   * worker's. An attempt whose claim was lost is not recorded, and does not count on the webhook.
   * Returns each held claim's delivery with its status as it stands (a delivery settleWaiting
   * cancelled while its call was in flight is no longer waiting).
   */
  abstract heldClaims(claims: HeldClaim[]): Promise<Map<string, DeliveryStatus>>;
  /** Appends each attempt and applies its outcome, releasing the claim and bumping seq. */
  abstract recordAttempts(records: RecordedAttempt[]): Promise<void>;
  /** An unclaimed waiting delivery at `seq` to a final status (its webhook was disabled or deleted meanwhile). */
  abstract settle(id: string, seq: number, status: 'skipped' | 'cancelled', now: Date): Promise<boolean>;
  /**
   * Up to `limit` waiting, unclaimed deliveries due before `staleBefore` (their queue item is
   * presumed lost), rescheduled for `now` with seq bumped. Returns them.
   */
  abstract rescheduleStale(staleBefore: Date, now: Date, limit: number): Promise<ScheduledDelivery[]>;
  /** A waiting delivery whose work keeps failing (not its calls: the handler itself) becomes `failed`, claim released. */
  abstract abandon(id: string): Promise<boolean>;
  /**
   * Each waiting delivery at its `seq` is due again at its `at` (its queue item comes back then: its
   * handler threw, or its call was sent back to the queue to wait there); in one statement.
   */
  abstract postpone(postponements: Postponement[]): Promise<void>;
  /** Waiting deliveries of the webhook to `status`; returns how many. */
  abstract settleWaiting(webhookId: string, status: 'skipped' | 'cancelled'): Promise<number>;
  /**
   * One more attempt now: a final delivery becomes pending at `retryStepIfFinal`; a waiting one is
   * due now, one step back in its schedule (the attempt now is an extra one: its failure waits the
   * delay the delivery was waiting for, and the schedule goes on). Null when it is being attempted
   * right now (or is cancelled).
   */
  abstract scheduleNow(id: string, now: Date, retryStepIfFinal: number): Promise<ScheduledDelivery | null>;
  /**
   * Up to `limit` failed or skipped deliveries of the webhook created at or after `since`, with an id
   * above `afterId`, back to pending now with a fresh retry schedule. Returns them in id order.
   */
  abstract recover(webhookId: string, since: Date, afterId: string, now: Date, limit: number): Promise<ScheduledDelivery[]>;
  abstract waitingSummary(): Promise<WaitingSummary>;
}
