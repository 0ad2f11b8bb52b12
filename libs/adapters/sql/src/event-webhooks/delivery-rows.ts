import { isSuccess, type TransportErrorKind } from '../../../../kernel/src';
import type { Attempt, DeliveryStatus } from '../../../../event-webhooks/src/deliveries/delivery';
import type { DispatchDelivery } from '../../../../event-webhooks/src/deliveries/delivery.repository';
import type { CountedAttempt } from '../../../../event-webhooks/src/stats/webhook-stats';
import type { ApiFamily } from '../../../../event-webhooks/src/webhooks/webhook';
import { dateOrNull } from './multi-row-insert';

/** The rows of `deliveries` and `delivery_attempts` as the drivers return them, and their mapping to the domain. */

export interface DeliveryRow {
  id: string;
  webhook_id: string;
  account_id: number | string;
  event_id: string;
  event_type: string;
  api_version: ApiFamily;
  status: DeliveryStatus;
  retry_step: number | string;
  seq: number | string;
  next_attempt_at: number | string | null;
  claimed_until: number | string | null;
  created_at: number | string;
  attempt_count: number | string;
  is_test: number | string;
}

export interface AttemptRow {
  delivery_id: string;
  at: number | string;
  duration_ms: number | string;
  http_status: number | string | null;
  error: TransportErrorKind | null;
  response_body: string;
  request_headers: string | null;
}

export const COLUMN_NAMES = [
  'id',
  'webhook_id',
  'account_id',
  'event_id',
  'event_type',
  'api_version',
  'status',
  'retry_step',
  'seq',
  'next_attempt_at',
  'claimed_until',
  'created_at',
  'attempt_count',
  'is_test',
];
export const COLUMNS = COLUMN_NAMES.join(', ');
export const INSERT_COLUMNS = ['id', 'webhook_id', 'account_id', 'event_id', 'event_type', 'api_version', 'status', 'attempts', 'retry_step', 'seq', 'next_attempt_at', 'created_at', 'attempt_count', 'is_test'];
export const ATTEMPT_COLUMNS = ['delivery_id', 'attempt_no', 'webhook_id', 'account_id', 'at', 'duration_ms', 'http_status', 'error', 'response_body', 'request_headers'];
export function toDispatchDelivery(row: DeliveryRow): DispatchDelivery {
  return {
    id: row.id,
    webhookId: row.webhook_id,
    accountId: Number(row.account_id),
    eventId: row.event_id,
    eventType: row.event_type,
    apiVersion: row.api_version,
    status: row.status,
    nextAttemptAt: dateOrNull(row.next_attempt_at),
    createdAt: new Date(Number(row.created_at)),
    retryStep: Number(row.retry_step),
    seq: Number(row.seq),
    claimedUntil: dateOrNull(row.claimed_until),
    attemptCount: Number(row.attempt_count),
    test: Number(row.is_test) === 1,
  };
}

export function toAttempt(row: AttemptRow): Attempt {
  return {
    at: new Date(Number(row.at)),
    durationMs: Number(row.duration_ms),
    httpStatus: row.http_status === null ? null : Number(row.http_status),
    error: row.error,
    responseBody: row.response_body,
    requestHeaders: row.request_headers === null ? null : (JSON.parse(row.request_headers) as Record<string, string>),
  };
}

/** An attempt row (or `n` alike ones) as the stats counters take it, success as the dispatcher judged it. */
export function countedAttempt(row: Pick<AttemptRow, 'duration_ms' | 'http_status'> & { n?: number | string }, webhookId: string, deliveryCreatedAt: Date): CountedAttempt {
  const success = isSuccess(row.http_status === null ? null : Number(row.http_status));
  return { webhookId, deliveryCreatedAt, durationMs: Number(row.duration_ms), success, count: row.n === undefined ? 1 : Number(row.n) };
}
