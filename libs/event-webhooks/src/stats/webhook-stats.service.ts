import { Injectable } from '@nestjs/common';
import { Clock } from '../../../kernel/src';
import { invalidWebhookParameter } from '../event-webhooks.errors';
import { parseInstant } from '../iso-instant';
import { findAccountWebhook } from '../webhooks/find-webhook';
import { WebhookRepository } from '../webhooks/webhook.repository';
import { DEFAULT_STATS_WINDOW_MS, hourOf, MAX_STATS_WINDOW_MS, summarize, WebhookStats } from './webhook-stats';
import { WebhookStatsRepository } from './webhook-stats.repository';

/** `GET .../stats` (CONTRACT §9.3): a webhook's deliveries, attempts, success rate and latency since a time. */
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
    const from = since === undefined ? new Date(until.getTime() - DEFAULT_STATS_WINDOW_MS) : parseInstant(since);
    if (from > until) throw invalidWebhookParameter('since must not be in the future');
    if (until.getTime() - from.getTime() > MAX_STATS_WINDOW_MS) throw invalidWebhookParameter('since must be at most 31 days ago');
    const [counts, rows] = await Promise.all([this.counters.countDeliveries(id, from), this.counters.read(id, hourOf(from.getTime()))]);
    return summarize(from, until, counts, rows);
  }
}
