import { Batcher, Clock, REDOABLE, retryAfterEnd, UnitOfWork, WorkQueue } from '../../../kernel/src';
import { EventWebhooksSettings } from '../event-webhooks.settings';
import { statsRowsOf } from '../stats/webhook-stats';
import { WebhookStatsRepository } from '../stats/webhook-stats.repository';
import { disableWebhook, SETTLED_BY_DISABLE } from '../webhooks/disable-webhook';
import { crossedFailing, failingThreshold, OperationalEvents } from '../webhooks/operational-events';
import { AttemptTally, FailureCount, WebhookPause, WebhookRepository } from '../webhooks/webhook.repository';
import { afterAttempt, Attempt, AttemptOutcome, isWaiting, WebhookStanding } from './delivery';
import { DeliveryRepository, DispatchDelivery, RecordedAttempt } from './delivery.repository';
import { DeliveryObserver } from './delivery-observer';
import { deliveryWorkItem } from './delivery-work';

export interface FinishedAttempt {
  delivery: DispatchDelivery;
  claimToken: string;
  attempt: Attempt;
  success: boolean;
  /** The receiver's Retry-After (429/503), when it sent one. */
  retryAfterMs?: number;
}

/** Null when the claim was lost meanwhile: the attempt is not recorded and does not count. */
export type RecordResult = { outcome: AttemptOutcome } | null;

/** Attempts recorded per transaction at most. */
const MAX_BATCH = 256;

/**
 * Records finished attempts in batches: attempts of many deliveries that end at about the same
 * time share one transaction, one statement per kind of write (the attempt rows, the deliveries'
 * new states, each webhook's failure counter once, the stats counters, the retries' queue items). Within a batch the
 * order of completion is the order of the attempts on each webhook's counter.
 */
export class AttemptRecorder {
  private readonly batcher: Batcher<FinishedAttempt, RecordResult>;

  constructor(
    private readonly deliveries: DeliveryRepository,
    private readonly webhooks: WebhookRepository,
    private readonly queue: WorkQueue,
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly settings: EventWebhooksSettings,
    private readonly observer: DeliveryObserver,
    private readonly notices: OperationalEvents,
    private readonly stats: WebhookStatsRepository,
  ) {
    this.batcher = new Batcher((batch) => this.recordBatch(batch), { maxSize: MAX_BATCH, maxConcurrent: 1 });
  }

  record(finished: FinishedAttempt): Promise<RecordResult> {
    return this.batcher.submit(finished);
  }

  private async recordBatch(batch: FinishedAttempt[]): Promise<RecordResult[]> {
    const disabled: Array<{ webhookId: string; accountId: number; consecutiveFailures: number }> = [];
    const results = await this.uow.run(async () => {
      disabled.length = 0;
      // Token and seq: a late attempt never lands on a delivery rescheduled after its lease ran out.
      // The counters of webhooks the batch ends in a success for are read with it (one round trip on
      // MySQL): mostly every claim is still held, and then none is read again.
      const [held, readBefore] = await Promise.all([
        this.deliveries.heldClaims(batch.map((f) => ({ id: f.delivery.id, token: f.claimToken, seq: f.delivery.seq }))),
        this.webhooks.failureCounts(tallyOf(batch).filter((t) => t.failures === 0).map((t) => t.webhookId)),
      ]);
      const kept = batch.filter((f) => held.has(f.delivery.id));
      if (kept.length === 0) return batch.map(() => null);
      const now = this.clock.now();
      const tallies = tallyOf(kept);
      const counts = await this.webhooks.tallyAttempts(tallies, readBefore);
      const pauses = pausesOf(kept, now);
      if (pauses.length > 0) await this.webhooks.pauseUntil(pauses);
      const standing = new Map<string, WebhookStanding>();
      for (const tally of tallies) {
        const count = counts.get(tally.webhookId);
        if (count) standing.set(tally.webhookId, await this.standingAfter(tally, count, now, disabled, kept));
      }
      // A webhook disabled by this batch had its waiting deliveries settled `skipped` just now, the
      // batch's own among them: their counters move on from that status, not from the one read before.
      const settledByDisable = new Set(disabled.map((d) => d.webhookId));
      const records = kept.map((f): RecordedAttempt => {
        const outcome = afterAttempt({
          success: f.success,
          retryStep: f.delivery.retryStep,
          retryScheduleMs: this.settings.retryScheduleMs,
          now,
          webhook: standing.get(f.delivery.webhookId) ?? (f.success ? 'active' : 'deleted'),
          retryAfterMs: f.retryAfterMs,
        });
        const { id, webhookId, accountId, attemptCount, createdAt } = f.delivery;
        const read = held.get(id)!;
        const formerStatus = settledByDisable.has(webhookId) && isWaiting(read) ? SETTLED_BY_DISABLE : read;
        return { deliveryId: id, webhookId, accountId, attemptNo: attemptCount + 1, deliveryCreatedAt: createdAt, formerStatus, attempt: f.attempt, outcome };
      });
      await this.deliveries.recordAttempts(records);
      await this.stats.add(
        statsRowsOf(kept.map((f) => ({ webhookId: f.delivery.webhookId, deliveryCreatedAt: f.delivery.createdAt, durationMs: f.attempt.durationMs, success: f.success }))),
      );
      const retries = records.filter((r) => r.outcome.nextAttemptAt !== null);
      if (retries.length > 0) {
        const seqOf = new Map(kept.map((f) => [f.delivery.id, f.delivery.seq]));
        await this.queue.enqueue(retries.map((r) => deliveryWorkItem(r.deliveryId, seqOf.get(r.deliveryId)! + 1, r.outcome.nextAttemptAt!)));
      }
      const byId = new Map(records.map((r) => [r.deliveryId, r.outcome]));
      return batch.map((f): RecordResult => (byId.has(f.delivery.id) ? { outcome: byId.get(f.delivery.id)! } : null));
      // Redoable: lost in a power cut, these attempts are made again (at-least-once): their queue
      // items are acknowledged after this commit, and the sweeper re-queues a delivery left waiting.
    }, REDOABLE);
    for (const each of disabled) this.observer.disabled({ ...each, reason: 'consecutive_failures' });
    return results;
  }

  /**
   * A webhook whose counter reached half the threshold in this batch is reported failing, and one
   * that reached the threshold is disabled, in the same transaction as the attempts.
   */
  private async standingAfter(
    tally: AttemptTally,
    count: FailureCount,
    at: Date,
    disabled: Array<{ webhookId: string; accountId: number; consecutiveFailures: number }>,
    kept: FinishedAttempt[],
  ): Promise<WebhookStanding> {
    if (count.state === 'disabled') return 'disabled';
    const { disableAfter } = this.settings;
    const before = tally.reset ? 0 : count.consecutiveFailures - tally.failures;
    const failing = crossedFailing(before, count.consecutiveFailures, disableAfter);
    const disabling = count.consecutiveFailures >= disableAfter;
    if (!failing && !disabling) return 'active';
    const webhook = await this.webhooks.findById(tally.webhookId);
    if (!webhook) return 'active';
    // The batch's failures count one by one, in completion order: the event tells of the failure
    // that reached half the threshold, and the counter stops at the threshold.
    const runOfFailures = failuresAfterLastSuccess(kept, webhook.id);
    if (failing) {
      const threshold = failingThreshold(disableAfter);
      await this.notices.failing(webhook, threshold, runOfFailures[threshold - before - 1].attempt);
    }
    if (!disabling) return 'active';
    const stoppedAt = Math.max(disableAfter, before);
    await disableWebhook({ webhooks: this.webhooks, deliveries: this.deliveries, notices: this.notices }, webhook, at, 'consecutive_failures', stoppedAt);
    disabled.push({ webhookId: webhook.id, accountId: webhook.accountId, consecutiveFailures: stoppedAt });
    return 'disabled';
  }
}

/** The attempts on `webhookId` that failed after its last success in the batch, in completion order. */
function failuresAfterLastSuccess(kept: FinishedAttempt[], webhookId: string): FinishedAttempt[] {
  const run: FinishedAttempt[] = [];
  for (const f of kept) {
    if (f.delivery.webhookId !== webhookId) continue;
    if (f.success) run.length = 0;
    else run.push(f);
  }
  return run;
}

/** Per webhook, in completion order: the failures after its last success, and whether it had one. */
export function tallyOf(attempts: Array<Pick<FinishedAttempt, 'success'> & { delivery: Pick<DispatchDelivery, 'webhookId'> }>): AttemptTally[] {
  const tallies = new Map<string, AttemptTally>();
  for (const { delivery, success } of attempts) {
    const tally = tallies.get(delivery.webhookId) ?? { webhookId: delivery.webhookId, failures: 0, reset: false };
    if (success) Object.assign(tally, { failures: 0, reset: true });
    else tally.failures++;
    tallies.set(delivery.webhookId, tally);
  }
  return [...tallies.values()];
}

/** The latest pause each webhook's receiver asked for in this batch (Retry-After), for every dispatcher to keep. */
function pausesOf(finished: FinishedAttempt[], now: Date): WebhookPause[] {
  const latest = new Map<string, Date>();
  for (const f of finished) {
    if (f.retryAfterMs === undefined) continue;
    const until = retryAfterEnd(now, f.retryAfterMs);
    const known = latest.get(f.delivery.webhookId);
    if (!known || until > known) latest.set(f.delivery.webhookId, until);
  }
  return [...latest].map(([webhookId, until]) => ({ webhookId, until }));
}
