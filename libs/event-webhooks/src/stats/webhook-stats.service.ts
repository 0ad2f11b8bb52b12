import { Injectable } from '@nestjs/common';
import { Clock } from '../../../kernel/src';
import type { DeliveryStatus } from '../deliveries/delivery';
import { invalidWebhookParameter } from '../event-webhooks.errors';
import { parseInstant } from '../iso-instant';
import { findAccountWebhook } from '../webhooks/find-webhook';
import { WebhookRepository } from '../webhooks/webhook.repository';
import { DEFAULT_STATS_WINDOW_MS, HOUR_MS, hourOf, MAX_STATS_WINDOW_MS, summarize, WebhookStats } from './webhook-stats';
import { PartialHour, WebhookStatsRepository } from './webhook-stats.repository';

const NOTHING: PartialHour = { deliveries: {}, attempts: [] };

function addCounts(a: Partial<Record<DeliveryStatus, number>>, b: Partial<Record<DeliveryStatus, number>>): Partial<Record<DeliveryStatus, number>> {
  const sum = { ...a };
  for (const [status, n] of Object.entries(b) as Array<[DeliveryStatus, number]>) sum[status] = (sum[status] ?? 0) + n;
  return sum;
}

/** `GET .../stats` (CONTRACT §9.3): a webhook's deliveries created since a time, their attempts, success rate and latency. */
@Injectable()
export class WebhookStatsService {
  constructor(
    private readonly webhooks: WebhookRepository,
    private readonly counters: WebhookStatsRepository,
    private readonly clock: Clock,
  ) {}

  async stats(accountId: number, id: string, since?: unknown): Promise<WebhookStats> {
    await findAccountWebhook(this.webhooks, accountId, id);
    const until = this.clock.now();
    const asked = since === undefined ? new Date(until.getTime() - DEFAULT_STATS_WINDOW_MS) : parseInstant(since);
    if (asked > until) throw invalidWebhookParameter('since must not be in the future');
    if (until.getTime() - asked.getTime() > MAX_STATS_WINDOW_MS) throw invalidWebhookParameter('since must be at most 31 days ago');
    // The counters are kept per hour of the delivery's creation: whole hours are read from them, the
    // hour `since` falls in from the deliveries created since then and their attempts.
    const from = asked.getTime();
    const wholeFrom = from === hourOf(from) ? from : hourOf(from) + HOUR_MS;
    const [counts, rows, head] = await Promise.all([
      this.counters.countDeliveries(id, wholeFrom),
      this.counters.read(id, wholeFrom),
      wholeFrom === from ? NOTHING : this.counters.countPartialHour(id, from, wholeFrom),
    ]);
    return summarize(asked, until, addCounts(counts, head.deliveries), [...head.attempts, ...rows]);
  }
}
