/**
 * The outbound HTTP port: one POST to a customer URL, never throwing for network outcomes.
 * Every failure is classified so that it can be recorded on the attempt as the contract says.
 */
export type TransportErrorKind =
  | 'timeout'
  | 'connection_refused'
  | 'dns'
  | 'tls'
  | 'blocked_address'
  | 'invalid_url'
  | 'connection_reset';

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
}

export abstract class OutboundHttp {
  abstract post(request: OutboundRequest): Promise<OutboundResult>;
}

export const RESPONSE_BODY_LIMIT_BYTES = 4096;
