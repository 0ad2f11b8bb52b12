/** The reason the adapter aborts a call with when its total time limit passes. */
export class OutboundTimeoutError extends Error {
  readonly code = 'ERR_OUTBOUND_TIMEOUT';

  constructor(readonly timeoutMs: number) {
    super(`no complete answer within ${timeoutMs} ms`);
    this.name = 'OutboundTimeoutError';
  }
}
