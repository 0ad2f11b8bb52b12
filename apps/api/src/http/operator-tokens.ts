/** The two operator credentials in force for this process (configured or generated at start). */
export class OperatorTokens {
  constructor(
    readonly admin: string,
    readonly internal: string,
  ) {}
}
