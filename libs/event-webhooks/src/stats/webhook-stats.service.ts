import { Injectable } from '@nestjs/common';
import { Clock } from '../../../kernel/src';
import { invalidWebhookParameter } from '../event-webhooks.errors';
import { parseInstant } from '../iso-instant';
import { findAccountWebhook } from '../webhooks/find-webhook';
import { WebhookRepository } from '../webhooks/webhook.repository';
import { DEFAULT_STATS_WINDOW_MS, hourOf, MAX_STATS_WINDOW_MS, summarize, WebhookStats } from './webhook-stats';
import { WebhookStatsRepository } from './webhook-stats.repository';

/** `GET .../stats` (CONTRACT §9.3): a webhook's deliveries, attempts, success rate and latency since the hour of a time. */
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
    // The attempt counters are kept per hour of the delivery's creation: the window starts on the
    // hour of `since` (and says so), so deliveries and their attempts are counted over the same one.
    const from = new Date(hourOf(asked.getTime()));
    const [counts, rows] = await Promise.all([this.counters.countDeliveries(id, from.getTime()), this.counters.read(id, from.getTime())]);
    return summarize(from, until, counts, rows);
  }
}
