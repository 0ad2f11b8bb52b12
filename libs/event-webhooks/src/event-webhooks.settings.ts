/** What the event-webhooks lib needs from the configuration (a DI token; see EventWebhooksModule). */
export class EventWebhooksSettings {
  constructor(
    /** Delays before each automatic retry; a delivery has `retryScheduleMs.length + 1` attempts. */
    readonly retryScheduleMs: readonly number[],
    /** Consecutive failed attempts that disable a webhook. */
    readonly disableAfter: number,
    /** Whether webhook URLs may point at loopback, private, link-local... addresses. */
    readonly allowPrivateTargets: boolean,
    /** How long a rotated-out secret keeps signing beside the new one. */
    readonly rotationGraceMs: number,
    /** Time limit of one delivery call. */
    readonly timeoutMs: number,
    /** Calls in flight at once to one receiver origin, per dispatcher process. */
    readonly originConcurrency: number,
    /** First attempts in flight at once per dispatcher process (retries: half as many, apart). */
    readonly concurrency: number,
  ) {}
}
