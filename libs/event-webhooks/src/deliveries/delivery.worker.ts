import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ReceivedWork, WorkHandler, WorkOutcome, Clock, OutboundHttp, SecretBox, UnitOfWork, WorkQueue } from '../../../kernel/src';
import { SERVICE_SIGNATURE_HEADER, sign, WEBHOOK_ID_HEADER, WEBHOOK_SIGNATURE_HEADER, WEBHOOK_TIMESTAMP_HEADER } from '../../../signing/src';
import { EventWebhooksSettings } from '../event-webhooks.settings';
import { disableWebhook } from '../webhooks/disable-webhook';
import { Webhook } from '../webhooks/webhook';
import { WebhookRepository } from '../webhooks/webhook.repository';
import { afterAttempt, Attempt, isSuccess, isWaiting, WebhookStanding } from './delivery';
import { DeliveryRepository, DispatchJob } from './delivery.repository';
import { attemptOutcome, DeliveryObserver } from './delivery-observer';
import { DELIVERY_TOPIC, deliveryWorkItem, readDeliveryWorkPayload } from './delivery-work';
import { OriginLimiter, originOf } from './origin-limiter';

/** A claim outlives the call's own time limit by this much (signing, recording, a slow database). */
const LEASE_MARGIN_MS = 30_000;
/** When another dispatcher holds the claim, look again just after its lease would expire. */
const BUSY_RECHECK_MARGIN_MS = 1_000;

/**
 * Makes one delivery attempt per queue item. Delivery is at-least-once, so the item only names
 * the delivery and its seq: the row decides. An outdated or final delivery is dropped, an early
 * one waits, and the claim (a conditional UPDATE with a lease) keeps two dispatchers from
 * attempting the same delivery at once.
 */
@Injectable()
export class DeliveryWorker extends WorkHandler {
  readonly topic = DELIVERY_TOPIC;
  private readonly logger = new Logger(DeliveryWorker.name);

  constructor(
    private readonly deliveries: DeliveryRepository,
    private readonly webhooks: WebhookRepository,
    private readonly http: OutboundHttp,
    private readonly secretBox: SecretBox,
    private readonly queue: WorkQueue,
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly settings: EventWebhooksSettings,
    private readonly limiter: OriginLimiter,
    private readonly observer: DeliveryObserver,
  ) {
    super();
  }

  async handle(work: ReceivedWork): Promise<WorkOutcome> {
    const payload = readDeliveryWorkPayload(work.payload);
    if (!payload) return { kind: 'drop', reason: 'payload does not name a delivery' };
    const job = await this.deliveries.findForDispatch(payload.deliveryId);
    if (!job) return { kind: 'drop', reason: `delivery ${payload.deliveryId} does not exist` };
    const { delivery } = job;
    if (!isWaiting(delivery.status) || delivery.seq !== payload.seq) return { kind: 'done' };
    const now = this.clock.now();
    if (delivery.nextAttemptAt && delivery.nextAttemptAt > now) return { kind: 'retry', at: delivery.nextAttemptAt };

    const webhook = await this.webhooks.findById(delivery.webhookId);
    if (!webhook || webhook.state === 'disabled') {
      await this.deliveries.settle(delivery.id, delivery.seq, webhook ? 'skipped' : 'cancelled', now);
      return { kind: 'done' };
    }
    const queuedAt = this.clock.nowMs();
    return this.limiter.run(originOf(webhook.url), async () => {
      // After a wait for the origin's slot, take the webhook as it is now (url, secrets); a
      // webhook disabled or deleted meanwhile has settled its deliveries, so the claim fails.
      const current = this.clock.nowMs() > queuedAt ? await this.webhooks.findById(webhook.id) : webhook;
      return current ? this.attempt(job, current) : { kind: 'done' };
    });
  }

  private async attempt({ delivery, body }: DispatchJob, webhook: Webhook): Promise<WorkOutcome> {
    const startedAt = this.clock.now();
    const token = randomUUID();
    const leaseUntil = new Date(startedAt.getTime() + this.settings.timeoutMs + LEASE_MARGIN_MS);
    if (!(await this.deliveries.claim(delivery.id, delivery.seq, startedAt, leaseUntil, token))) {
      return this.afterLostClaim(delivery.id, delivery.seq);
    }

    const timestamp = Math.floor(startedAt.getTime() / 1000);
    const signed = sign({ secrets: this.signingSecrets(webhook, startedAt), body, timestamp, id: delivery.eventId });
    const result = await this.http.post({
      url: webhook.url,
      body,
      timeoutMs: this.settings.timeoutMs,
      headers: {
        'Content-Type': 'application/json',
        [SERVICE_SIGNATURE_HEADER]: signed.signature,
        'X-Service-Event-Id': delivery.eventId,
        'X-Service-Event-Type': delivery.eventType,
        [WEBHOOK_ID_HEADER]: signed.webhookId,
        [WEBHOOK_TIMESTAMP_HEADER]: signed.webhookTimestamp,
        [WEBHOOK_SIGNATURE_HEADER]: signed.webhookSignature,
      },
    });
    const attempt: Attempt = { at: startedAt, durationMs: result.durationMs, httpStatus: result.status, error: result.error, responseBody: result.body };
    const success = isSuccess(result.status);
    this.observe(success, result.status, result.error, result.durationMs);

    const outcome = await this.uow.run(async () => {
      const finishedAt = this.clock.now();
      const standing = success ? await this.afterSuccess(webhook.id) : await this.afterFailure(webhook.id, finishedAt);
      const next = afterAttempt({ success, retryStep: delivery.retryStep, retryScheduleMs: this.settings.retryScheduleMs, now: finishedAt, webhook: standing });
      const recorded = await this.deliveries.recordAttempt(delivery.id, token, [...delivery.attempts, attempt], next);
      if (recorded && next.nextAttemptAt) {
        await this.queue.enqueue([deliveryWorkItem(delivery.id, delivery.seq + 1, next.nextAttemptAt)]);
      }
      return next;
    });
    this.logger.debug(`delivery ${delivery.id} attempt ${delivery.attempts.length + 1}: ${result.status ?? result.error} in ${result.durationMs} ms, now ${outcome.status}`);
    return { kind: 'done' };
  }

  private observe(success: boolean, status: number | null, error: Attempt['error'], durationMs: number): void {
    try {
      this.observer.attempted(attemptOutcome(success, status, error), durationMs);
    } catch {
      // Metrics are best-effort: an observer's failure never changes a delivery.
    }
  }

  /** Someone else holds the claim: if it dies, its lease runs out and this item tries again. */
  private async afterLostClaim(id: string, seq: number): Promise<WorkOutcome> {
    const current = (await this.deliveries.findForDispatch(id))?.delivery;
    const now = this.clock.nowMs();
    if (current && isWaiting(current.status) && current.seq === seq && current.claimedUntil && current.claimedUntil.getTime() > now) {
      return { kind: 'retry', at: new Date(current.claimedUntil.getTime() + BUSY_RECHECK_MARGIN_MS) };
    }
    return { kind: 'done' };
  }

  private async afterSuccess(webhookId: string): Promise<WebhookStanding> {
    await this.webhooks.resetFailures(webhookId);
    return 'active';
  }

  /** The counter goes up in one statement; reaching the threshold disables the webhook. */
  private async afterFailure(webhookId: string, at: Date): Promise<WebhookStanding> {
    const count = await this.webhooks.countFailure(webhookId);
    if (!count) return 'deleted';
    if (count.state === 'disabled') return 'disabled';
    if (count.consecutiveFailures >= this.settings.disableAfter) {
      await disableWebhook(this.webhooks, this.deliveries, webhookId, at, 'consecutive_failures');
      this.uow.afterCommit(() => this.logger.warn(`webhook ${webhookId} disabled after ${count.consecutiveFailures} consecutive failed attempts`));
      return 'disabled';
    }
    return 'active';
  }

  /** Newest first: the current secret, then the previous one while its grace period lasts. */
  private signingSecrets(webhook: Webhook, now: Date): string[] {
    const secrets = [this.secretBox.open(webhook.sealedSecret)];
    if (webhook.sealedPreviousSecret && webhook.previousSecretExpiresAt && webhook.previousSecretExpiresAt > now) {
      secrets.push(this.secretBox.open(webhook.sealedPreviousSecret));
    }
    return secrets;
  }
}
