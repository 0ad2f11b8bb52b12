import type { TransportErrorKind } from './outbound-http';

/** How one outbound call ended, for metrics: an HTTP status class, or the transport error kind. */
export interface CallOutcome {
  result: 'succeeded' | 'failed';
  /** `2xx`, `3xx`, `4xx`, `5xx` (`1xx` too) when an answer arrived, `other_status` for a status outside 100 to 599, else the error kind. */
  reason: `${1 | 2 | 3 | 4 | 5}xx` | 'other_status' | TransportErrorKind;
}

export function callOutcome(success: boolean, status: number | null, error: TransportErrorKind | null): CallOutcome {
  return { result: success ? 'succeeded' : 'failed', reason: status === null ? (error ?? 'connection_reset') : statusClass(status) };
}

function statusClass(status: number): CallOutcome['reason'] {
  return status >= 100 && status <= 599 ? (`${Math.floor(status / 100)}xx` as CallOutcome['reason']) : 'other_status';
}
