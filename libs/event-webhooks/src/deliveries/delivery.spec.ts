import { afterAttempt } from './delivery';

describe(afterAttempt.name, () => {
  const now = new Date('2025-11-22T02:00:00.000Z');
  const schedule = [10_000, 60_000];
  const base = { retryScheduleMs: schedule, now, webhook: 'active' as const };

  it('ends in succeeded on success, whatever the step', () => {
    expect(afterAttempt({ ...base, success: true, retryStep: 0 })).toEqual({ status: 'succeeded', nextAttemptAt: null, retryStep: 0 });
    expect(afterAttempt({ ...base, success: true, retryStep: 2, webhook: 'disabled' }).status).toBe('succeeded');
  });

  it('walks the retry schedule, then fails', () => {
    expect(afterAttempt({ ...base, success: false, retryStep: 0 })).toEqual({ status: 'retrying', nextAttemptAt: new Date(now.getTime() + 10_000), retryStep: 1 });
    expect(afterAttempt({ ...base, success: false, retryStep: 1 })).toEqual({ status: 'retrying', nextAttemptAt: new Date(now.getTime() + 60_000), retryStep: 2 });
    expect(afterAttempt({ ...base, success: false, retryStep: 2 })).toEqual({ status: 'failed', nextAttemptAt: null, retryStep: 2 });
  });

  it('skips a failure of a disabled webhook and cancels one of a deleted webhook', () => {
    expect(afterAttempt({ ...base, success: false, retryStep: 0, webhook: 'disabled' })).toEqual({ status: 'skipped', nextAttemptAt: null, retryStep: 0 });
    expect(afterAttempt({ ...base, success: false, retryStep: 0, webhook: 'deleted' })).toEqual({ status: 'cancelled', nextAttemptAt: null, retryStep: 0 });
  });

  it('fails a delivery whose last attempt failed, also when that failure disabled the webhook (nothing was left to skip)', () => {
    expect(afterAttempt({ ...base, success: false, retryStep: 2, webhook: 'disabled' })).toEqual({ status: 'failed', nextAttemptAt: null, retryStep: 2 });
  });

  it("waits for a longer Retry-After (up to a minute), never less than the schedule", () => {
    const after = (retryAfterMs: number, retryStep = 0) => afterAttempt({ ...base, success: false, retryStep, retryAfterMs }).nextAttemptAt!.getTime() - now.getTime();
    expect(after(30_000)).toBe(30_000);
    expect(after(5_000)).toBe(10_000);
    expect(after(3_600_000)).toBe(60_000);
    expect(after(3_600_000, 1)).toBe(60_000);
    expect(afterAttempt({ ...base, success: false, retryStep: 2, retryAfterMs: 5_000 }).status).toBe('failed');
  });

  it('fails at once with an empty schedule', () => {
    expect(afterAttempt({ ...base, retryScheduleMs: [], success: false, retryStep: 0 }).status).toBe('failed');
  });
});
