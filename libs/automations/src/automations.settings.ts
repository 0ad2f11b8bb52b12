/** What the automations lib reads from the configuration (built by libs/adapters/domain-settings.ts). */
export class AutomationsSettings {
  constructor(
    /** TARGET_RETRY_SCHEDULE: delays before each retry of a failed send_webhook call. */
    readonly targetRetryScheduleMs: readonly number[],
    /** PUBLIC_BASE_URL without a trailing slash: trigger URLs are `${publicBaseUrl}/hooks/<token>`. */
    readonly publicBaseUrl: string,
    /** DISPATCHER_CONCURRENCY: target calls in flight per process (one account holds at most three quarters). */
    readonly callConcurrency = 256,
    /** DISPATCHER_ORIGIN_CONCURRENCY: target calls in flight to one origin per process. */
    readonly originConcurrency = 64,
  ) {}
}
