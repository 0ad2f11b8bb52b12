/** Settings of the send-status lib, bound from the validated config by the module. */
export class SendStatusSettings {
  constructor(
    /** SEND_STATUS_RETENTION_DAYS: a send and its history are purged this many days after creation. */
    readonly retentionDays: number,
  ) {}
}
