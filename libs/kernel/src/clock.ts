/** Time source, injected so that tests can move time without sleeping. */
export abstract class Clock {
  abstract now(): Date;
  nowMs(): number {
    return this.now().getTime();
  }
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}

/**
 * How far ahead of this server's clock a producer's own timestamp (an event's `created`, a send's
 * `createdAt`, a report's `at`) may be: clocks drift, but a time further ahead is a producer's bug,
 * and kept it would sit atop every newest-first list and outlive retention until that day.
 */
export const PRODUCER_CLOCK_SKEW_MS = 5 * 60_000;

export function isTooFarAhead(timeMs: number, nowMs: number): boolean {
  return timeMs > nowMs + PRODUCER_CLOCK_SKEW_MS;
}

export function tooFarAheadMessage(field: string): string {
  return `${field} must not be in the future (more than ${PRODUCER_CLOCK_SKEW_MS / 60_000} minutes ahead of the server's clock)`;
}
