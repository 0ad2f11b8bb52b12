import type { TransportErrorKind } from './outbound-http';

/** How one outbound call ended, for metrics: an HTTP status class, or the transport error kind. */
export interface CallOutcome {
  result: 'succeeded' | 'failed';
  /** `2xx`, `3xx`, `4xx`, `5xx` (`1xx` too) when an answer arrived, else the error kind. */
  reason: `${1 | 2 | 3 | 4 | 5}xx` | TransportErrorKind;
}

export function callOutcome(success: boolean, status: number | null, error: TransportErrorKind | null): CallOutcome {
  const reason: CallOutcome['reason'] =
    status !== null ? (`${Math.min(5, Math.max(1, Math.floor(status / 100)))}xx` as CallOutcome['reason']) : (error ?? 'connection_reset');
  return { result: success ? 'succeeded' : 'failed', reason };
}
