import type { TransportErrorKind } from '../../../kernel/src';

/** How one delivery attempt ended: an HTTP status class, or the transport error kind. */
export interface DeliveryAttemptOutcome {
  result: 'succeeded' | 'failed';
  /** `2xx`, `3xx`, `4xx`, `5xx` (`1xx` too) when an answer arrived, else the error kind. */
  reason: `${1 | 2 | 3 | 4 | 5}xx` | TransportErrorKind;
}

/**
 * The delivery worker's window for operations (metrics): called once per attempt made.
 * Implemented by an adapter (Prometheus); must never throw or block.
 */
export abstract class DeliveryObserver {
  abstract attempted(outcome: DeliveryAttemptOutcome, durationMs: number): void;
}

/** Observes nothing: the default when no operations adapter is wired (unit tests). */
export class NoDeliveryObserver extends DeliveryObserver {
  attempted(): void {}
}

export function attemptOutcome(success: boolean, status: number | null, error: TransportErrorKind | null): DeliveryAttemptOutcome {
  const reason: DeliveryAttemptOutcome['reason'] =
    status !== null ? (`${Math.min(5, Math.max(1, Math.floor(status / 100)))}xx` as DeliveryAttemptOutcome['reason']) : (error ?? 'connection_reset');
  return { result: success ? 'succeeded' : 'failed', reason };
}
