import { AckPolicy, DeliverPolicy, JetStreamApiCodes, JetStreamApiError, JetStreamManager, MsgRequest, ReplayPolicy, RetentionPolicy, StorageType } from '@nats-io/jetstream';

/**
 * Names and server-side setup of one installation's work stream: `${prefix}_work` holds
 * `${prefix}.work.<topic>`, one durable pull consumer `${prefix}_<topic>` per topic. Everything
 * is created or brought up to date at start, so any process may be the first one.
 */
export class JetStreamTopology {
  readonly stream: string;
  private restoring: Promise<void> | null = null;

  /** `replicas`: copies a JetStream cluster keeps of the stream (1 on a single server). */
  constructor(
    readonly prefix: string,
    readonly replicas = 1,
  ) {
    this.stream = `${prefix}_work`;
  }

  subject(topic: string): string {
    return `${this.prefix}.work.${topic}`;
  }

  durable(topic: string): string {
    return `${this.prefix}_${topic}`;
  }

  /** Creates the stream or brings its settings up to date; true when it had to be created. */
  async ensureStream(jsm: JetStreamManager): Promise<boolean> {
    const wanted = {
      subjects: [`${this.prefix}.work.>`],
      // The window in which a re-published outbox row (same Nats-Msg-Id) is dropped as a duplicate.
      duplicate_window: nanos(120_000),
      num_replicas: this.replicas,
    };
    try {
      const info = await jsm.streams.info(this.stream);
      const same =
        info.config.subjects?.join() === wanted.subjects.join() &&
        info.config.duplicate_window === wanted.duplicate_window &&
        info.config.num_replicas === wanted.num_replicas;
      if (!same) await jsm.streams.update(this.stream, wanted);
      return false;
    } catch (error) {
      if (!isApiError(error, JetStreamApiCodes.StreamNotFound)) throw error;
      await jsm.streams.add({
        name: this.stream,
        retention: RetentionPolicy.Workqueue,
        storage: StorageType.File,
        ...wanted,
      });
      return true;
    }
  }

  /**
   * Creates the stream again after a publish found none (deleted by an operator, or lost with a
   * server's store), one call at a time; the delivery sweeper re-queues the work that was in it.
   * `onCreated` runs once, for the call that started the restoration, if it had to create it.
   */
  restoreStream(jsm: JetStreamManager, onCreated?: () => void): Promise<void> {
    this.restoring ??= this.ensureStream(jsm)
      .then((created) => (created ? onCreated?.() : undefined))
      .finally(() => (this.restoring = null));
    return this.restoring;
  }

  /**
   * When the oldest message of `topic` not yet handed to its consumer was stored (null when none
   * waits, or the stream is gone): the consumer's next undelivered message, found by subject from
   * the stream sequence it delivered last; with no consumer yet, the topic's first message. The
   * time is when JetStream stored the message, a little after its items were due: the sweeper may
   * count those items as gone from the queue a moment early, never items further behind.
   */
  async oldestUndelivered(jsm: JetStreamManager, topic: string): Promise<Date | null> {
    try {
      const info = await jsm.consumers.info(this.stream, this.durable(topic)).catch((error: unknown) => {
        if (isApiError(error, JetStreamApiCodes.ConsumerNotFound)) return null;
        throw error;
      });
      if (info?.num_pending === 0) return null;
      // The server takes `next_by_subj` with `seq` in a STREAM.MSG.GET request (2.9 and later); the client's type lists it for direct gets only.
      const query = { seq: (info?.delivered.stream_seq ?? 0) + 1, next_by_subj: this.subject(topic) } as unknown as MsgRequest;
      return (await jsm.streams.getMessage(this.stream, query))?.time ?? null;
    } catch (error) {
      if (isApiError(error, JetStreamApiCodes.StreamNotFound)) return null;
      throw error;
    }
  }

  async ensureConsumer(jsm: JetStreamManager, topic: string, settings: { ackWaitMs: number; maxAckPending: number }): Promise<void> {
    const durable = this.durable(topic);
    const tunable = { ack_wait: nanos(settings.ackWaitMs), max_ack_pending: settings.maxAckPending };
    try {
      const info = await jsm.consumers.info(this.stream, durable);
      if (info.config.ack_wait !== tunable.ack_wait || info.config.max_ack_pending !== tunable.max_ack_pending) {
        await jsm.consumers.update(this.stream, durable, tunable);
      }
    } catch (error) {
      if (isApiError(error, JetStreamApiCodes.StreamNotFound)) await this.restoreStream(jsm);
      else if (!isApiError(error, JetStreamApiCodes.ConsumerNotFound)) throw error;
      await jsm.consumers.add(this.stream, {
        durable_name: durable,
        filter_subject: this.subject(topic),
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        replay_policy: ReplayPolicy.Instant,
        // Never give up on a message: retries are scheduled by the handler's outcome, not here.
        max_deliver: -1,
        ...tunable,
      });
    }
  }
}

/** JetStream durations are nanoseconds. */
function nanos(ms: number): number {
  return ms * 1_000_000;
}

/** What a publish gets when no stream takes its subject: the server has no responder for it. */
export function isStreamMissing(error: unknown): boolean {
  return (error instanceof Error && error.name === 'JetStreamNotEnabled') || isApiError(error, JetStreamApiCodes.StreamNotFound);
}

function isApiError(error: unknown, code: number): boolean {
  return error instanceof JetStreamApiError && error.code === code;
}
