import type { CallOutcome, TransportErrorKind } from '../../../kernel/src';
import type { DeliveryStatus } from './delivery';


export interface DeliveryIds {
  accountId: number;
  webhookId: string;
  eventId: string;
  deliveryId: string;
}

export interface AttemptReport extends DeliveryIds {
  eventType: string;
  attemptNo: number;
  outcome: CallOutcome;
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

/** A delivery handed back to the queue before its call: its line (origin and account) had enough waiting. */
export interface DeferReport extends Omit<DeliveryIds, 'eventId'> {
  until: Date;
}

/**
 * The dispatcher's window for operations (metrics and log lines with ids as fields), implemented
 * by an adapter. Calls must never throw or block.
 */
export abstract class DeliveryObserver {
  abstract attempted(report: AttemptReport): void;
  abstract disabled(report: DisableReport): void;
  abstract deferred(report: DeferReport): void;
  /** Events accepted at intake, by type. */
  abstract accepted(eventType: string, count: number): void;
}
