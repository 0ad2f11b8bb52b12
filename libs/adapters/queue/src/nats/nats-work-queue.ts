import { Logger } from '@nestjs/common';
import { Batcher, Clock, ConsumeOptions, flatten, newId, QueueBacklog, ReceivedWork, WorkHandlerFn, WorkItem, WorkQueue, WorkSubscription } from '../../../../kernel/src';
import { LeasedRowWorker } from '../leased-row-worker';
import { ClaimedRow, LeasedRows, NewLeasedRow } from '../leased-rows';
import { assertTopic, assertWorkItems, DEFAULT_FAILURE_BACKOFF, describeError, FailureBackoff, QueueLogger } from '../work-items';
import { TypeormDatabase } from '../../../sql/src/typeorm-database';
import { JetStreamTopicConsumer } from './jetstream-topic-consumer';
import { isStreamMissing, JetStreamTopology } from './jetstream-topology';
import { NatsConnect, NatsLink } from './nats-link';
import { encodeEnvelope, encodeMessage, MAX_ITEMS_PER_MESSAGE } from './work-message';

/** Outbox rows deleted by one statement at most. */
const DELETE_CHUNK = 1000;
/** A message's body at most, in UTF-16 units (3 bytes each at worst: under the server's default max_payload of 1 MB). */
const MAX_MESSAGE_BYTES = 256 * 1024;
/** Messages being published at once, at most, by one process. */
const MAX_PUBLISHES_IN_FLIGHT = 1024;

type PublishableRow = Omit<ClaimedRow, 'token'>;

export interface NatsWorkQueueOptions {
  /** NATS server URL(s), comma-separated or a list. */
  servers: string | string[];
  /** Prefix of the stream, consumers and subjects of this installation. */
  prefix: string;
  /** Copies of the stream a JetStream cluster keeps (default 1). */
  replicas?: number;
  /** How long a message handed to a worker stays invisible without an ack or working() (default 60 s). */
  ackWaitMs?: number;
  /** Unacked messages the server lets out per consumer, over all processes (default 10000). */
  maxAckPending?: number;
  /** How long one pull request waits on the server (default 5 s, min 1 s). */
  fetchExpiresMs?: number;
  /** How often the outbox relay looks for rows to hand over (default 250 ms). */
  relayIntervalMs?: number;
  /** Lease a relay takes on the outbox rows it publishes (default 30 s). */
  relayLeaseMs?: number;
  /** Outbox rows one relay publishes at once (default 100). */
  relayBatch?: number;
  /** A row whose publish failed is tried again after this (default 1 s). */
  relayRetryMs?: number;
  /** How long a just-stored due row is left to the fast path before the relay may take it (default 2 s). */
  handOverGraceMs?: number;
  /** Wait for a publish ack and for JetStream API calls (default 2 s). */
  requestTimeoutMs?: number;
  reconnectTimeWaitMs?: number;
  /** create() waits this long for the first connection, then carries on connecting in the background (default 2 s). */
  startWaitMs?: number;
  failureBackoff?: FailureBackoff;
  logger?: QueueLogger;
  /** The client's connect(), replaceable to watch or cut the connection (tests simulate a crash). */
  connect?: NatsConnect;
}

/**
 * The queue on NATS JetStream, for multi-process deployments. The SQL outbox makes the hand-over
 * transactional: enqueue() stores rows in the caller's transaction, they are published right
 * after commit when NATS is up, and the relay (in every process) publishes whatever is left or
 * comes due. Delays (runAt, retry) wait in the outbox: this server version has no scheduled
 * messages, and a delayed nak would hold a MaxAckPending slot for the whole delay.
 */
export class NatsWorkQueue extends WorkQueue {
  private readonly outbox: LeasedRows;
  private readonly topology: JetStreamTopology;
  private readonly link: NatsLink;
  private readonly relay: LeasedRowWorker;
  private readonly consumers = new Set<JetStreamTopicConsumer>();
  private readonly handOvers = new Set<Promise<void>>();
  /** Published outbox rows, deleted together: hand-overs that finish at about the same time share one DELETE. */
  private readonly cleared: Batcher<string[], void>;
  /** Rows published at about the same time share messages: see publishTogether. */
  private readonly publisher: Batcher<PublishableRow, unknown>;
  /** Retries asked for at about the same time share one INSERT (a backlog sent back to the queue comes in hundreds). */
  private readonly retries: Batcher<NewLeasedRow, void>;
  private readonly logger: QueueLogger;
  private readonly settings: Required<Omit<NatsWorkQueueOptions, 'servers' | 'prefix' | 'replicas' | 'logger' | 'connect'>>;

  static async create(db: TypeormDatabase, clock: Clock, options: NatsWorkQueueOptions): Promise<NatsWorkQueue> {
    const queue = new NatsWorkQueue(db, clock, options);
    await queue.start();
    return queue;
  }

  private constructor(
    private readonly db: TypeormDatabase,
    private readonly clock: Clock,
    options: NatsWorkQueueOptions,
  ) {
    super();
    this.logger = options.logger ?? new Logger(NatsWorkQueue.name);
    this.settings = {
      ackWaitMs: options.ackWaitMs ?? 60_000,
      maxAckPending: options.maxAckPending ?? 10_000,
      fetchExpiresMs: Math.max(options.fetchExpiresMs ?? 5_000, 1_000),
      relayIntervalMs: options.relayIntervalMs ?? 250,
      relayLeaseMs: options.relayLeaseMs ?? 30_000,
      relayBatch: options.relayBatch ?? 100,
      relayRetryMs: options.relayRetryMs ?? 1_000,
      handOverGraceMs: options.handOverGraceMs ?? 2_000,
      requestTimeoutMs: options.requestTimeoutMs ?? 2_000,
      reconnectTimeWaitMs: options.reconnectTimeWaitMs ?? 250,
      startWaitMs: options.startWaitMs ?? 2_000,
      failureBackoff: options.failureBackoff ?? DEFAULT_FAILURE_BACKOFF,
    };
    this.outbox = new LeasedRows(db, { name: 'outbox', extraColumns: ['work_id', 'prior_deliveries'] });
    this.cleared = new Batcher(async (lists) => {
      await this.outbox.deleteUnleased(flatten(lists));
      return lists.map(() => undefined);
    }, { maxSize: 8 });
    this.publisher = new Batcher((rows) => this.publishTogether(rows), { maxSize: MAX_ITEMS_PER_MESSAGE, maxConcurrent: MAX_PUBLISHES_IN_FLIGHT });
    this.retries = new Batcher(async (rows) => (await this.store(rows), rows.map(() => undefined)), { maxSize: 256, maxConcurrent: 1 });
    this.topology = new JetStreamTopology(options.prefix, options.replicas ?? 1);
    const servers = (Array.isArray(options.servers) ? options.servers : options.servers.split(',')).map((s) => s.trim()).filter(Boolean);
    this.link = new NatsLink({
      servers,
      name: `webhook-server-${process.pid}`,
      requestTimeoutMs: this.settings.requestTimeoutMs,
      reconnectTimeWaitMs: this.settings.reconnectTimeWaitMs,
      setUp: async (jsm) => {
        await this.topology.ensureStream(jsm);
      },
      logger: this.logger,
      connect: options.connect,
    });
    this.relay = new LeasedRowWorker(
      this.outbox,
      clock,
      async (row) => {
        await this.publish(row);
        return { kind: 'done' };
      },
      {
        topic: null,
        concurrency: this.settings.relayBatch,
        leaseMs: this.settings.relayLeaseMs,
        pollIntervalMs: this.settings.relayIntervalMs,
        retryAfterFailure: (_row, nowMs) => new Date(nowMs + this.settings.relayRetryMs),
        canClaim: () => this.link.up,
        label: 'outbox relay',
      },
      this.logger,
    );
  }

  private async start(): Promise<void> {
    await this.link.start(this.settings.startWaitMs);
    this.relay.start();
  }

  /**
   * Due items the enqueuer sweeps back if lost (`sweptBackIfLost`) skip the outbox: they are
   * published right after commit, and only those that could not be published are stored then, for
   * the relay. Every other item is stored in the caller's transaction (see store).
   */
  async enqueue(items: WorkItem[]): Promise<void> {
    if (items.length === 0) return;
    assertWorkItems(items);
    const now = this.clock.nowMs();
    const rows = items.map((item) => {
      const id = newId('wrk', now);
      const row: NewLeasedRow = {
        id,
        topic: item.topic,
        payload: JSON.stringify(item.payload),
        dedupKey: item.key ?? null,
        availableAt: item.runAt?.getTime() ?? now,
        extra: { work_id: id, prior_deliveries: 0 },
      };
      return { row, direct: item.sweptBackIfLost === true && row.availableAt <= now };
    });
    const direct = rows.filter((r) => r.direct).map((r) => r.row);
    if (direct.length > 0) this.db.afterCommit(() => this.track(this.publishOrStore(direct)));
    await this.store(rows.filter((r) => !r.direct).map((r) => r.row));
  }

  async consume(topic: string, handler: WorkHandlerFn, options: ConsumeOptions): Promise<WorkSubscription> {
    assertTopic(topic);
    const consumer = new JetStreamTopicConsumer(
      this.link,
      this.topology,
      handler,
      (work, at) => this.scheduleRetry(work, at),
      this.clock,
      {
        topic,
        concurrency: Math.max(1, Math.floor(options.concurrency)),
        ackWaitMs: this.settings.ackWaitMs,
        maxAckPending: this.settings.maxAckPending,
        fetchExpiresMs: this.settings.fetchExpiresMs,
        failureBackoff: this.settings.failureBackoff,
        spareCapacity: options.spareCapacity ?? (() => Infinity),
        maxHandlerFailures: options.maxHandlerFailures,
        giveUp: options.giveUp,
        postpone: options.postpone,
      },
      this.logger,
    );
    this.consumers.add(consumer);
    consumer.start();
    return {
      stop: async (graceMs?: number) => {
        await consumer.stop(graceMs);
        this.consumers.delete(consumer);
      },
    };
  }

  /** What waits in the outbox (delayed retries, and items not yet handed to JetStream). */
  backlog(): Promise<QueueBacklog> {
    return this.outbox.backlog();
  }

  /** The older of the topic's oldest outbox row (not yet in the stream, or a delayed retry) and its oldest message not yet handed out. */
  async oldestWaiting(topic: string): Promise<Date | null> {
    const handles = this.link.current;
    if (!handles) throw new Error('NATS is not connected');
    const [stored, streamed] = await Promise.all([this.outbox.oldestAvailable(topic), this.topology.oldestUndelivered(handles.jsm, topic)]);
    const times = [stored, streamed].filter((t): t is Date => t !== null);
    return times.length === 0 ? null : new Date(Math.min(...times.map((t) => t.getTime())));
  }

  /** Throws unless NATS answers a JetStream request now. */
  async ping(): Promise<void> {
    const handles = this.link.current;
    if (!handles) throw new Error('NATS is not connected');
    await handles.jsm.getAccountInfo();
  }

  async close(): Promise<void> {
    const consumers = [...this.consumers];
    this.consumers.clear();
    await Promise.all(consumers.map((consumer) => consumer.stop(0)));
    await this.relay.stop(0);
    await Promise.all([...this.handOvers]);
    await this.link.close();
  }

  /** A retry is a new outbox row due at `at`, carrying the work id and the deliveries so far. */
  private scheduleRetry(work: ReceivedWork, at: Date): Promise<void> {
    return this.retries.submit({
      id: newId('wrk'),
      topic: work.topic,
      payload: JSON.stringify(work.payload),
      dedupKey: null,
      availableAt: at.getTime(),
      failures: work.failures,
      extra: { work_id: work.id, prior_deliveries: work.deliveryCount },
    });
  }

  /**
   * Due rows are stored with a short grace (`handOverGraceMs`) before the relay may take them: the
   * fast path publishes and deletes them right after commit, and only rows it could not hand over
   * (a crash, NATS down) are the relay's, so the two never fight over the same fresh rows.
   */
  private async store(rows: NewLeasedRow[]): Promise<void> {
    if (rows.length === 0) return;
    const now = this.clock.nowMs();
    const graced = rows.map((row) => (row.availableAt <= now ? { ...row, availableAt: now + this.settings.handOverGraceMs } : row));
    await this.outbox.insert(graced, now);
    const due = graced.filter((row, i) => rows[i].availableAt <= now);
    if (due.length === 0) return;
    // Not awaited: the caller's commit should not wait on NATS. The relay covers any failure.
    this.db.afterCommit(() => this.track(this.handOver(due)));
  }

  private track(handOver: Promise<void>): void {
    const tracked = handOver.finally(() => this.handOvers.delete(tracked));
    this.handOvers.add(tracked);
  }

  /** Publishes committed items that have no outbox row; what fails gets one now, due at once, for the relay. */
  private async publishOrStore(rows: NewLeasedRow[]): Promise<void> {
    const failed: NewLeasedRow[] = [];
    if (this.link.up) {
      await Promise.all(rows.map((row) => this.publish(this.asClaimable(row)).catch(() => failed.push(row))));
    } else {
      failed.push(...rows);
    }
    if (failed.length === 0) return;
    try {
      await this.db.transaction(() => this.outbox.insert(failed, this.clock.nowMs()));
    } catch (error) {
      this.logger.warn(`outbox: ${failed.length} items could be neither published nor stored; their sweeper re-queues them: ${describeError(error)}`);
    }
  }

  private asClaimable(row: NewLeasedRow): PublishableRow {
    return { id: row.id, topic: row.topic, payload: row.payload, deliveryCount: 0, failures: row.failures ?? 0, extra: row.extra ?? {} };
  }

  /**
   * The fast path: publish just-committed rows at once (in shared messages, all in flight
   * together) instead of on the relay's next poll, then delete them in batches. A row a relay took
   * meanwhile is published twice (stored once if grouped alike) and left to that relay to delete.
   */
  private async handOver(stored: NewLeasedRow[]): Promise<void> {
    if (!this.link.up) return;
    try {
      const rows = await this.storedRows(stored);
      const published: string[] = [];
      await Promise.all(rows.map((row) => this.publish(row).then(() => published.push(row.id), () => undefined)));
      for (let i = 0; i < published.length; i += DELETE_CHUNK) await this.cleared.submit(published.slice(i, i + DELETE_CHUNK));
    } catch (error) {
      this.logger.warn(`outbox: immediate hand-over failed, the relay will retry: ${describeError(error)}`);
    }
  }

  /** Rows without a dedup key were all stored; keyed ones are read back, since a duplicate key was skipped. */
  private async storedRows(rows: NewLeasedRow[]): Promise<PublishableRow[]> {
    const plain = rows.filter((row) => row.dedupKey === null).map((row) => this.asClaimable(row));
    const keyed = rows.filter((row) => row.dedupKey !== null).map((row) => row.id);
    return keyed.length === 0 ? plain : [...plain, ...(await this.outbox.unleased(keyed))];
  }

  /** Resolves once the message carrying the row is stored by JetStream; rejects with that message's error. */
  private async publish(row: PublishableRow): Promise<void> {
    const error = await this.publisher.submit(row);
    if (error !== null) throw error;
  }

  /**
   * Rows that came together (up to MAX_ITEMS_PER_MESSAGE) go as one message per topic and size
   * limit: one publish and one ack for many items. The message id JetStream deduplicates on is the
   * row id for a row alone, and the first row's id with the count for several: a row published
   * again in another grouping (a relay after a lost delete) is stored twice, which consumers meet
   * as any redelivery (the delivery's seq and claim make the second a no-op). Returns, per row,
   * null or the error of its message.
   */
  private async publishTogether(rows: PublishableRow[]): Promise<unknown[]> {
    const outcome = new Map<PublishableRow, unknown>();
    await Promise.all(
      messagesOf(rows).map(async ({ topic, rows: carried, body }) => {
        const msgID = carried.length === 1 ? carried[0].id : `${carried[0].id}+${carried.length}`;
        try {
          await this.publishMessage(topic, body, msgID);
          for (const row of carried) outcome.set(row, null);
        } catch (error) {
          for (const row of carried) outcome.set(row, error);
        }
      }),
    );
    return rows.map((row) => outcome.get(row) ?? null);
  }

  private async publishMessage(topic: string, body: string, msgID: string): Promise<void> {
    const handles = this.link.current;
    if (!handles) throw new Error('NATS is not connected');
    try {
      await handles.js.publish(this.topology.subject(topic), body, { msgID, timeout: this.settings.requestTimeoutMs });
    } catch (error) {
      // The rows stay in the outbox (or get a row) and are published again once the stream is back.
      if (isStreamMissing(error)) {
        await this.topology
          .restoreStream(handles.jsm, () => this.logger.warn(`JetStream stream ${this.topology.stream} was missing: created again`))
          .catch(() => undefined);
      }
      throw error;
    }
  }
}

/** The rows' messages: per topic, in order, cut at MAX_ITEMS_PER_MESSAGE items or MAX_MESSAGE_BYTES. */
function messagesOf(rows: PublishableRow[]): Array<{ topic: string; rows: PublishableRow[]; body: string }> {
  const messages: Array<{ topic: string; rows: PublishableRow[]; body: string }> = [];
  const open = new Map<string, { rows: PublishableRow[]; envelopes: string[]; bytes: number }>();
  const close = (topic: string) => {
    const message = open.get(topic);
    if (!message) return;
    open.delete(topic);
    messages.push({ topic, rows: message.rows, body: encodeMessage(message.envelopes) });
  };
  for (const row of rows) {
    const envelope = encodeEnvelope(String(row.extra.work_id ?? row.id), Number(row.extra.prior_deliveries ?? 0), row.failures, row.payload);
    let message = open.get(row.topic);
    if (message && (message.rows.length >= MAX_ITEMS_PER_MESSAGE || message.bytes + envelope.length + 1 > MAX_MESSAGE_BYTES)) {
      close(row.topic);
      message = undefined;
    }
    if (!message) {
      message = { rows: [], envelopes: [], bytes: 2 };
      open.set(row.topic, message);
    }
    message.rows.push(row);
    message.envelopes.push(envelope);
    message.bytes += envelope.length + 1;
  }
  for (const topic of [...open.keys()]) close(topic);
  return messages;
}
