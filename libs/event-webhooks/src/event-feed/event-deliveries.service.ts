import { Injectable } from '@nestjs/common';
import { DeliveryView, deliveryViewOf } from '../deliveries/delivery';
import { DeliveryRepository } from '../deliveries/delivery.repository';
import { eventNotFound } from '../event-webhooks.errors';
import { EVENT_ID_PATTERN } from '../intake/new-event';
import { WebhookRepository } from '../webhooks/webhook.repository';
import { EventFeedRepository } from './event-feed.repository';

export interface EventDeliveryView extends DeliveryView {
  webhookId: string;
}

/**
 * Where one event went: its delivery on each webhook of the account it was fanned out to (at
 * most one per webhook, by the unique event and webhook pair), found by the event id alone rather
 * than by paging a webhook's whole delivery log.
 */
@Injectable()
export class EventDeliveriesService {
  constructor(
    private readonly feed: EventFeedRepository,
    private readonly deliveries: DeliveryRepository,
    private readonly webhooks: WebhookRepository,
  ) {}

  /** In the order of the webhooks' creation; an event with none (no webhook subscribed) has an empty list, an unknown or foreign one is not_found. */
  async list(accountId: number, eventId: string): Promise<EventDeliveryView[]> {
    if (!EVENT_ID_PATTERN.test(eventId)) throw eventNotFound(eventId);
    const deliveries = await this.deliveries.listForEvent(accountId, eventId);
    if (deliveries.length === 0) {
      const event = await this.feed.find(accountId, eventId);
      if (!event || event.id !== eventId) throw eventNotFound(eventId);
      return [];
    }
    const pauses = new Map((await this.webhooks.listForAccount(accountId)).map((w) => [w.id, w.pausedUntil]));
    return deliveries.map((d) => ({ webhookId: d.webhookId, ...deliveryViewOf(d, pauses.get(d.webhookId) ?? null) }));
  }
}
