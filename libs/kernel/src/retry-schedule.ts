/** The rules every outbound call of the server shares: event deliveries and automation steps alike. */

/** An attempt succeeded when the receiver answered 2xx; anything else (no answer included) failed. */
export function isSuccess(httpStatus: number | null): boolean {
  return httpStatus !== null && httpStatus >= 200 && httpStatus < 300;
}

/** A receiver's Retry-After (on 429 or 503) delays its next call by this much at most; the schedule governs beyond. */
export const RETRY_AFTER_MAX_MS = 60_000;

/** Until when a receiver's Retry-After holds, counted from `now` and capped at RETRY_AFTER_MAX_MS. */
export function retryAfterEnd(now: Date, retryAfterMs: number): Date {
  return new Date(now.getTime() + Math.min(retryAfterMs, RETRY_AFTER_MAX_MS));
}

/**
 * When the retry after a failure is due: `retryStep` retries were already scheduled, so the next
 * one waits `scheduleMs[retryStep]`, or longer when the receiver asked for it (`retryAfterMs`, capped
 * at RETRY_AFTER_MAX_MS); null once the schedule is spent (the failure is final).
 */
export function nextRetryAt(retryStep: number, scheduleMs: readonly number[], now: Date, retryAfterMs?: number): Date | null {
  if (retryStep >= scheduleMs.length) return null;
  const scheduled = new Date(now.getTime() + scheduleMs[retryStep]);
  if (retryAfterMs === undefined) return scheduled;
  const asked = retryAfterEnd(now, retryAfterMs);
  return asked > scheduled ? asked : scheduled;
}
