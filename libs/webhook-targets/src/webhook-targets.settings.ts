/** What the webhook-targets lib reads from the configuration (provided from APP_CONFIG). */
export class WebhookTargetsSettings {
  constructor(
    /** ALLOW_PRIVATE_TARGETS: accept loopback/private target addresses. */
    readonly allowPrivateTargets: boolean,
    /** DELIVERY_TIMEOUT_MS: total time a target has to answer one call. */
    readonly timeoutMs: number,
  ) {}
}
