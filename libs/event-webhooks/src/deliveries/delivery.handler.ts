import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Batcher, callOutcome, Clock, isCurrentWork, Lanes, originOf, OutboundHttp, ReceivedWork, retryAfterEnd, sendSignedPost, WorkHandler, WorkOutcome } from '../../../kernel/src';
import { EventWebhooksSettings } from '../event-webhooks.settings';
import { AttemptRecorder, FinishedAttempt, RecordResult } from './attempt-recorder';
import { Attempt, isWaiting } from './delivery';
import { ClaimRequest, DeliveryRepository, DispatchDelivery, DispatchJob, Postponement, WonClaim } from './delivery.repository';
import { DeliveryObserver } from './delivery-observer';
import { DELIVERY_TOPIC, readDeliveryWorkPayload } from './delivery-work';
import { DispatchLanes } from './lanes';
import { CachedWebhook, signingSecrets, WebhookCache } from './webhook-cache';

/** A claim outlives the call's own time limit by this much (signing, recording, a slow database). */
const LEASE_MARGIN_MS = 30_000;
/** When another dispatcher holds the claim, look again just after its lease would expire. */
const BUSY_RECHECK_MARGIN_MS = 1_000;
/** Deliveries read or claimed per statement at most. */
const MAX_BATCH = 256;
/** The one key of `unrecorded`. */
const UNRECORDED = 'unrecorded';
/** Tries to record an attempt before giving up (the queue item then retries, after the claim's lease). */
const RECORD_TRIES = 4;

interface Claim extends WonClaim {
  token: string;
}

/** What a delivery waits in its lanes as: known from its row, or from its queue item (a first attempt). */
interface LaneTicket {
  id: string;
  seq: number;
  webhookId: string;
  accountId: number;
  first: boolean;
}

/**
 * Makes one delivery attempt per queue item. Delivery is at-least-once, so the item names the
 * delivery and its seq (and a new delivery's lane): the row decides. Items that arrive together are
 * read together (a new delivery whose webhook is in memory is not read: its claim reads it) and,
 * once their lanes let them go, claimed together (a conditional UPDATE with a lease keeps two
 * dispatchers from attempting the same delivery at once); the calls run concurrently, and their
 * outcomes are recorded in batches by the AttemptRecorder.
 */
@Injectable()
export class DeliveryHandler extends WorkHandler {
  readonly topic = DELIVERY_TOPIC;
  /**
   * Far more than the calls in flight: items wait in their lanes without holding a call's place, so
   * a saturated receiver's backlog never keeps the queue from handing out other accounts' work.
   */
  override readonly maxInFlight: number;
  private readonly reads: Batcher<string, DispatchJob | null>;
  private readonly claims: Batcher<ClaimRequest, Claim | null>;
  /** Calls sent back to the queue together are postponed together (a backlog is skimmed in hundreds). */
  private readonly postponements: Batcher<Postponement, void>;
  /** Items in handle() now, and among them those whose call has started (until it is recorded). */
  private handling = 0;
  /**
   * Calls answered but not yet recorded: a crash makes them again (at-least-once), so there are at
   * most a quarter of `concurrency` (64 by default); a call that would pass the bound keeps its
   * lane's place until one is recorded. Holding the lane through the record instead cost a fifth
   * of the throughput (figure 1 on MariaDB).
   */
  private readonly unrecorded: Lanes;
  private calling = 0;
  /** Set at shutdown (WorkHandler.stop): deliveries still waiting in their lanes make no call. */
  private stopped = false;

  constructor(
    private readonly deliveries: DeliveryRepository,
    private readonly webhooks: WebhookCache,
    private readonly http: OutboundHttp,
    private readonly lanes: DispatchLanes,
    private readonly recorder: AttemptRecorder,
    private readonly clock: Clock,
    private readonly settings: EventWebhooksSettings,
    private readonly observer: DeliveryObserver,
  ) {
    super();
    this.maxInFlight = settings.concurrency * 16;
    this.unrecorded = new Lanes(() => Math.max(1, Math.floor(settings.concurrency / 4)));
    // One statement of each kind in flight: what arrives meanwhile waits for it and goes in the next,
    // larger batch. Two in flight made smaller batches, more statements, and on MariaDB halved the
    // intake running beside the deliveries (figure 1: 3,000-4,700 against 6,700 events/s).
    this.reads = new Batcher((ids) => this.readBatch(ids), { maxSize: MAX_BATCH, maxConcurrent: 1 });
    this.claims = new Batcher((requests) => this.claimBatch(requests), { maxSize: MAX_BATCH, maxConcurrent: 1 });
    this.postponements = new Batcher(async (batch) => (await this.deliveries.postpone(batch), batch.map(() => undefined)), { maxSize: MAX_BATCH, maxConcurrent: 1 });
  }

  /**
   * More items are welcome while fewer than `concurrency` wait for a call's place; items parked
   * behind a saturated or paused receiver do not count, so its backlog never stops other work.
   */
  override spareCapacity(): number {
    return Math.max(0, this.settings.concurrency - (this.handling - this.calling - this.lanes.parked));
  }

  async handle(work: ReceivedWork): Promise<WorkOutcome> {
    this.handling++;
    try {
      return await this.handleItem(work);
    } finally {
      this.handling--;
    }
  }

  override stop(): void {
    this.stopped = true;
    this.lanes.stopWaiting();
  }

  /** Its handler threw: the delivery is due when its item comes back, so the sweeper leaves it to that item. */
  override async postpone(work: ReceivedWork, at: Date): Promise<void> {
    const payload = readDeliveryWorkPayload(work.payload);
    if (payload) await this.postponements.submit({ id: payload.deliveryId, seq: payload.seq, at });
  }

  /** Its handler kept throwing (WORK_MAX_HANDLER_FAILURES): the delivery fails, its attempts kept. */
  override async giveUp(work: ReceivedWork): Promise<void> {
    const payload = readDeliveryWorkPayload(work.payload);
    if (payload) await this.deliveries.abandon(payload.deliveryId);
  }

  private async handleItem(work: ReceivedWork): Promise<WorkOutcome> {
    const payload = readDeliveryWorkPayload(work.payload);
    if (!payload) return { kind: 'drop', reason: 'payload does not name a delivery' };
    // A new delivery's item names its lane: with its webhook in memory, no read before the claim.
    const lane = payload.firstAttempt;
    const known = lane ? this.webhooks.peek(lane.webhookId) : null;
    if (lane && known) return this.attempt({ id: payload.deliveryId, seq: payload.seq, ...lane, first: true }, known);

    const job = await this.reads.submit(payload.deliveryId);
    if (!job) return { kind: 'drop', reason: `delivery ${payload.deliveryId} does not exist` };
    const { delivery } = job;
    if (!isCurrentWork(delivery, isWaiting(delivery.status), payload.seq)) return { kind: 'done' };
    const now = this.clock.now();
    if (delivery.nextAttemptAt && delivery.nextAttemptAt > now) return { kind: 'retry', at: delivery.nextAttemptAt };

    // A pause another dispatcher recorded holds here too (this process's own is in the lanes already).
    if (job.webhookPausedUntil && job.webhookPausedUntil > now) this.lanes.pause(delivery.webhookId, job.webhookPausedUntil.getTime());
    const webhook = job.webhookVersion === null ? null : await this.webhooks.get(delivery.webhookId, job.webhookVersion);
    if (!webhook || webhook.webhook.state === 'disabled') {
      await this.deliveries.settle(delivery.id, delivery.seq, webhook ? 'skipped' : 'cancelled', now);
      return { kind: 'done' };
    }
    const { id, seq, webhookId, accountId } = delivery;
    return this.attempt({ id, seq, webhookId, accountId, first: delivery.attemptCount === 0 }, webhook);
  }

  /**
   * Waits in the delivery's lanes, then claims it, makes the call and records it. The lane's place is
   * held for the claim and the call only (and, past the bound, until there is room among the
   * unrecorded): recording the outcome does not load the receiver, and holding the place through the
   * batched record left calls unstarted.
   */
  private async attempt(ticket: LaneTicket, webhook: CachedWebhook): Promise<WorkOutcome> {
    const called = await this.lanes.run(originOf(webhook.webhook.url), ticket.first ? 'first' : 'retry', ticket.webhookId, String(ticket.accountId), async (timing) => {
      // Stopping while it waited in its lane: the item goes back to the queue, due now, for another
      // dispatcher (or this one after a restart) to make the call.
      if (this.stopped) return { kind: 'retry', at: this.clock.now() } as const;
      const claim = await this.claims.submit({ id: ticket.id, seq: ticket.seq });
      if (!claim) return this.afterLostClaim(ticket.id, ticket.seq);
      // Another dispatcher recorded a Retry-After pause while this delivery waited: it waits too.
      const pausedUntil = claim.webhookPausedUntil;
      if (pausedUntil && pausedUntil > this.clock.now()) {
        this.lanes.pause(ticket.webhookId, pausedUntil.getTime());
        await this.deliveries.releaseClaim(ticket.id, claim.token, pausedUntil);
        return { kind: 'retry', at: pausedUntil } as const;
      }
      // The webhook as of the claim: a change made while this delivery waited in its lane counts.
      const current = claim.webhookVersion === null ? null : await this.webhooks.get(ticket.webhookId, claim.webhookVersion);
      if (!current || current.webhook.state === 'disabled') return this.settleWithoutCall(claim, current ? 'skipped' : 'cancelled');
      this.calling++;
      try {
        timing.calling();
        const finished = await this.call(claim.delivery, claim, current);
        timing.answered();
        await this.unrecorded.acquire(UNRECORDED);
        return { kind: 'called', finished } as const;
      } catch (error) {
        this.calling--;
        throw error;
      }
    });
    if (called.kind === 'shed') {
      // Its line has enough waiting in memory: the item goes back to the queue, and the delivery says
      // when it is due, so the sweeper does not take it for lost meanwhile.
      await this.postponements.submit({ id: ticket.id, seq: ticket.seq, at: called.at });
      this.observer.deferred({ accountId: ticket.accountId, webhookId: ticket.webhookId, deliveryId: ticket.id, until: called.at });
      return { kind: 'retry', at: called.at };
    }
    if (called.kind !== 'called') return called;
    const { finished } = called;
    try {
      const recorded = await this.recordPatiently(finished);
      this.report(finished.delivery, finished.attempt, finished.success, recorded ? recorded.outcome.status : null);
    } finally {
      this.unrecorded.release(UNRECORDED);
      this.calling--;
    }
    return { kind: 'done' };
  }

  /** Its webhook was disabled or deleted while it waited (or since this process cached it): no call. */
  private async settleWithoutCall(claim: Claim, status: 'skipped' | 'cancelled'): Promise<WorkOutcome> {
    const now = this.clock.now();
    await this.deliveries.releaseClaim(claim.delivery.id, claim.token, now);
    await this.deliveries.settle(claim.delivery.id, claim.delivery.seq, status, now);
    return { kind: 'done' };
  }

  private async call(delivery: DispatchDelivery, { body, token: claimToken }: Claim, cached: CachedWebhook): Promise<FinishedAttempt> {
    const startedAt = this.clock.now();
    const result = await sendSignedPost(this.http, {
      url: cached.webhook.url,
      body,
      timeoutMs: this.settings.timeoutMs,
      at: startedAt,
      format: { kind: 'event_delivery', secrets: signingSecrets(cached, startedAt), eventId: delivery.eventId, eventType: delivery.eventType, test: delivery.test },
    });
    // Retry-After speaks for this endpoint: its other deliveries wait (out of the origin's lane), the
    // origin's other webhooks, often other accounts' on a shared host, do not.
    if (result.retryAfterMs !== undefined) this.lanes.pause(delivery.webhookId, retryAfterEnd(this.clock.now(), result.retryAfterMs).getTime());
    const { success } = result;
    const attempt: Attempt = {
      at: startedAt,
      durationMs: result.durationMs,
      httpStatus: result.status,
      error: result.error,
      responseBody: result.body,
      requestHeaders: result.requestHeaders,
    };
    return { delivery, claimToken, attempt, success, retryAfterMs: result.retryAfterMs };
  }

  /**
   * The call was made: losing its record would mean a second call once the claim runs out, so a
   * failed write (storage briefly unavailable, a lock timeout) is tried again a few times first.
   */
  private async recordPatiently(finished: FinishedAttempt): Promise<RecordResult> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.recorder.record(finished);
      } catch (error) {
        if (attempt >= RECORD_TRIES) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
      }
    }
  }

  private report(delivery: DispatchDelivery, attempt: Attempt, success: boolean, status: DispatchDelivery['status'] | null): void {
    try {
      this.observer.attempted({
        accountId: delivery.accountId,
        webhookId: delivery.webhookId,
        eventId: delivery.eventId,
        deliveryId: delivery.id,
        eventType: delivery.eventType,
        attemptNo: delivery.attemptCount + 1,
        outcome: callOutcome(success, attempt.httpStatus, attempt.error),
        httpStatus: attempt.httpStatus,
        error: attempt.error,
        durationMs: attempt.durationMs,
        firstAttemptLatencyMs: delivery.attemptCount === 0 ? attempt.at.getTime() - delivery.createdAt.getTime() : null,
        status,
      });
    } catch {
      // Metrics and logs are best-effort: an observer's failure never changes a delivery.
    }
  }

  /**
   * The claim failed. Someone else holds it: if it dies, its lease runs out and this item tries
   * again. Or the delivery, still waiting at this seq, is not due yet (postponed since its item was
   * queued; an item claimed without a read first learns it here): the item comes back when it is.
   */
  private async afterLostClaim(id: string, seq: number): Promise<WorkOutcome> {
    const current = (await this.reads.submit(id))?.delivery;
    if (!current || !isCurrentWork(current, isWaiting(current.status), seq)) return { kind: 'done' };
    const now = this.clock.nowMs();
    if (current.claimedUntil && current.claimedUntil.getTime() > now) return { kind: 'retry', at: new Date(current.claimedUntil.getTime() + BUSY_RECHECK_MARGIN_MS) };
    if (current.nextAttemptAt && current.nextAttemptAt.getTime() > now) return { kind: 'retry', at: current.nextAttemptAt };
    return { kind: 'done' };
  }

  private async readBatch(ids: string[]): Promise<Array<DispatchJob | null>> {
    const jobs = new Map((await this.deliveries.findForDispatch([...new Set(ids)])).map((job) => [job.delivery.id, job]));
    return ids.map((id) => jobs.get(id) ?? null);
  }

  private async claimBatch(requests: ClaimRequest[]): Promise<Array<Claim | null>> {
    const token = randomUUID();
    const now = this.clock.now();
    const leaseUntil = new Date(now.getTime() + this.settings.timeoutMs + LEASE_MARGIN_MS);
    const won = await this.deliveries.claimMany(requests, now, leaseUntil, token);
    // Two items naming one delivery in the same batch: only the first may attempt it.
    const given = new Set<string>();
    return requests.map((r) => (won.has(r.id) && !given.has(r.id) && given.add(r.id) ? { token, ...won.get(r.id)! } : null));
  }
}
