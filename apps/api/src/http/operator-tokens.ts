/** The operator credentials in force for this process (configured or generated at start). */
export class OperatorTokens {
  constructor(
    readonly admin: string,
    readonly internal: string,
    /** METRICS_TOKEN, or null when /metrics is open. */
    readonly metrics: string | null = null,
  ) {}
}
