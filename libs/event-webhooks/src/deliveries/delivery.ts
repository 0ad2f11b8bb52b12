import { nextRetryAt, type TransportErrorKind } from '../../../kernel/src';
import type { ApiFamily } from '../webhooks/webhook';

export const DELIVERY_STATUSES = ['pending', 'retrying', 'succeeded', 'failed', 'skipped', 'cancelled'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Statuses that wait for an attempt; every other status is final until a retry or recover. */
export const WAITING_STATUSES: readonly DeliveryStatus[] = ['pending', 'retrying'];
export const RECOVERABLE_STATUSES: readonly DeliveryStatus[] = ['failed', 'skipped'];
/** Statuses a delivery rests in (until a retry or recover): the ones the stats counters keep. */
export const SETTLED_STATUSES: readonly DeliveryStatus[] = DELIVERY_STATUSES.filter((s) => !WAITING_STATUSES.includes(s));

/**
 * The transitions besides an attempt's outcome (afterAttempt), decided here once: the repositories
 * apply them as conditional writes on the row (its status, seq and claim), the SQL adapter in its
 * WHERE clauses and the fake in its filters; test/contract checks that both agree.
 * - claim, settle, reschedule (sweeper): only a waiting, unclaimed delivery;
 * - abandon (its handler keeps throwing): waiting -> `failed`;
 * - recover: `failed` or `skipped` -> `pending`, retry schedule from the start;
 * - retry now: any status but `cancelled`; a final one becomes `pending`.
 */
export const DELIVERY_TRANSITIONS = {
  abandonedTo: 'failed',
  recoveredTo: 'pending',
  retryNowNever: 'cancelled',
  retryNowFinalTo: 'pending',
} as const satisfies Record<string, DeliveryStatus>;

export function isDeliveryStatus(value: unknown): value is DeliveryStatus {
  return typeof value === 'string' && (DELIVERY_STATUSES as readonly string[]).includes(value);
}

export function isWaiting(status: DeliveryStatus): boolean {
  return WAITING_STATUSES.includes(status);
}

export interface Attempt {
  at: Date;
  durationMs: number;
  httpStatus: number | null;
  error: TransportErrorKind | null;
  responseBody: string;
  /** The headers sent, names in lowercase (null for attempts stored before they were kept). */
  requestHeaders: Record<string, string> | null;
}

export interface Delivery {
  id: string;
  webhookId: string;
  accountId: number;
  eventId: string;
  eventType: string;
  apiVersion: ApiFamily;
  status: DeliveryStatus;
  attempts: Attempt[];
  nextAttemptAt: Date | null;
  createdAt: Date;
  /** How many automatic retries were already scheduled in the current run (index into the retry schedule). */
  retryStep: number;
  /**
   * Bumped every time the delivery is scheduled anew (retry, recover, after an attempt). A queue
   * item names the seq it was enqueued for, so an outdated item is recognised and dropped.
   */
  seq: number;
  /** Lease of the dispatcher attempting it now, if any. */
  claimedUntil: Date | null;
  /** Attempts made so far (the attempts themselves are read only for views). */
  attemptCount: number;
  /** A delivery of the `test` route: sent with `X-Service-Test: true`. */
  test: boolean;
}

export type DeliveryView = Pick<Delivery, 'id' | 'eventId' | 'eventType' | 'status' | 'attempts' | 'nextAttemptAt' | 'createdAt'>;

/** A waiting delivery of a webhook paused by its receiver shows the pause's end when that is later. */
export function deliveryViewOf(delivery: Delivery, pausedUntil: Date | null = null): DeliveryView {
  const { id, eventId, eventType, status, attempts, createdAt } = delivery;
  const paused = pausedUntil !== null && delivery.nextAttemptAt !== null && isWaiting(status) && pausedUntil > delivery.nextAttemptAt;
  return { id, eventId, eventType, status, attempts, nextAttemptAt: paused ? pausedUntil : delivery.nextAttemptAt, createdAt };
}

/** What became of the webhook by the time an attempt finished. */
export type WebhookStanding = 'active' | 'disabled' | 'deleted';

export interface AttemptOutcome {
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
  retryStep: number;
}

/**
 * The delivery state machine after one attempt. A success is final. A failure schedules the next
 * retry from the schedule (or later, when the receiver answered 429/503 with a longer Retry-After,
 * up to RETRY_AFTER_MAX_MS), or is final (`failed`) once the schedule is spent, also when this very
 * failure disabled the webhook; a failure with attempts left on a webhook that was disabled
 * meanwhile (or by this failure) is `skipped`, on a deleted one `cancelled`.
 */
export function afterAttempt(input: {
  success: boolean;
  retryStep: number;
  retryScheduleMs: readonly number[];
  now: Date;
  webhook: WebhookStanding;
  retryAfterMs?: number;
}): AttemptOutcome {
  const { success, retryStep, retryScheduleMs, now, webhook, retryAfterMs } = input;
  if (success) return { status: 'succeeded', nextAttemptAt: null, retryStep };
  if (webhook === 'deleted') return { status: 'cancelled', nextAttemptAt: null, retryStep };
  const retryAt = nextRetryAt(retryStep, retryScheduleMs, now, retryAfterMs);
  if (!retryAt) return { status: 'failed', nextAttemptAt: null, retryStep };
  if (webhook === 'disabled') return { status: 'skipped', nextAttemptAt: null, retryStep };
  return { status: 'retrying', nextAttemptAt: retryAt, retryStep: retryStep + 1 };
}
