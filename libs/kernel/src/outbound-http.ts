/**
 * The outbound HTTP port: one POST to a customer URL, never throwing for network outcomes.
 * Every failure is classified so that it can be recorded on the attempt as the contract says.
 */
/** How a call failed when no HTTP answer arrived: the `error` of an attempt. */
export const TRANSPORT_ERROR_KINDS = ['timeout', 'connection_refused', 'dns', 'tls', 'blocked_address', 'invalid_url', 'connection_reset'] as const;
export type TransportErrorKind = (typeof TRANSPORT_ERROR_KINDS)[number];

export interface OutboundRequest {
  url: string;
  headers: Record<string, string>;
  body: string | Buffer;
  /** Total time limit covering connect, headers and body; defaults to the configured one. */
  timeoutMs?: number;
}

export interface OutboundResult {
  /** HTTP status when an answer arrived (any status, 3xx included: redirects are not followed). */
  status: number | null;
  durationMs: number;
  /** Response body, at most 4 KB of it (UTF-8, cut at a character boundary). */
  body: string;
  /** Null whenever an HTTP answer arrived. */
  error: TransportErrorKind | null;
  /** Human detail for logs; never sent to receivers. */
  errorDetail?: string;
  /** A 429 or 503 answer's Retry-After, in milliseconds from now. */
  retryAfterMs?: number;
}

export abstract class OutboundHttp {
  /**
   * Every header a call of `request` carries on the wire, lowercase where the transport adds them
   * (`host`, `connection`, `user-agent` unless the request has one, `content-length`): what an
   * attempt records as sent.
   */
  abstract sentHeaders(request: OutboundRequest): Record<string, string>;
  /** Throws OutboundClosedError (and only that) when the process is shutting down and made no call. */
  abstract post(request: OutboundRequest): Promise<OutboundResult>;
}

/**
 * The call was not made because this process is shutting down: no attempt, so nothing to record
 * (recording it as a failed call counted the server's own shutdown against the receiver).
 */
export class OutboundClosedError extends Error {
  constructor() {
    super('the server is shutting down: the call was not made');
    this.name = 'OutboundClosedError';
  }
}

/** Retry-After as seconds or an HTTP date, in milliseconds from `nowMs`; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

export const RESPONSE_BODY_LIMIT_BYTES = 4096;
