import type { TransportErrorKind } from '../../../kernel/src';
import type { DeliveryStatus } from './delivery';

/** How one delivery attempt ended: an HTTP status class, or the transport error kind. */
export interface DeliveryAttemptOutcome {
  result: 'succeeded' | 'failed';
  /** `2xx`, `3xx`, `4xx`, `5xx` (`1xx` too) when an answer arrived, else the error kind. */
  reason: `${1 | 2 | 3 | 4 | 5}xx` | TransportErrorKind;
}

export interface DeliveryIds {
  accountId: number;
  webhookId: string;
  eventId: string;
  deliveryId: string;
}

export interface AttemptReport extends DeliveryIds {
  eventType: string;
  attemptNo: number;
  outcome: DeliveryAttemptOutcome;
  httpStatus: number | null;
  error: TransportErrorKind | null;
  durationMs: number;
  /** From the event's intake to the start of this attempt, for first attempts only. */
  firstAttemptLatencyMs: number | null;
  /** The delivery's status after the attempt; null when the attempt could not be recorded (lost claim). */
  status: DeliveryStatus | null;
}

export interface DisableReport {
  accountId: number;
  webhookId: string;
  reason: 'consecutive_failures' | 'manual';
  consecutiveFailures: number;
}

/**
 * The dispatcher's window for operations (metrics and log lines with ids as fields), implemented
 * by an adapter. Calls must never throw or block.
 */
export abstract class DeliveryObserver {
  abstract attempted(report: AttemptReport): void;
  abstract disabled(report: DisableReport): void;
  /** Events accepted at intake, by type. */
  abstract accepted(eventType: string, count: number): void;
}

export function attemptOutcome(success: boolean, status: number | null, error: TransportErrorKind | null): DeliveryAttemptOutcome {
  const reason: DeliveryAttemptOutcome['reason'] =
    status !== null ? (`${Math.min(5, Math.max(1, Math.floor(status / 100)))}xx` as DeliveryAttemptOutcome['reason']) : (error ?? 'connection_reset');
  return { result: success ? 'succeeded' : 'failed', reason };
}
