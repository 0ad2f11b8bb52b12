/** The rules every outbound call of the server shares: event deliveries and automation steps alike. */

/** An attempt succeeded when the receiver answered 2xx; anything else (no answer included) failed. */
export function isSuccess(httpStatus: number | null): boolean {
  return httpStatus !== null && httpStatus >= 200 && httpStatus < 300;
}

/**
 * When the retry after a failure is due: `retryStep` retries were already scheduled, so the next
 * one waits `scheduleMs[retryStep]`; null once the schedule is spent (the failure is final).
 */
export function nextRetryAt(retryStep: number, scheduleMs: readonly number[], now: Date): Date | null {
  return retryStep < scheduleMs.length ? new Date(now.getTime() + scheduleMs[retryStep]) : null;
}
