import type { ApiFamily, DeliveryPage, DeliveryView, EventDeliveryView, WebhookStats, WebhookView } from '../../../../libs/event-webhooks/src';
import { inFamilyCase } from '../http/family-casing';

/** Domain views to the JSON of each API family: ISO 8601 UTC times, nulls kept, then the family's casing. */
export class WebhookPresenter {
  constructor(readonly family: ApiFamily) {}

  webhook(view: WebhookView, secret?: string) {
    return this.cased({
      id: view.id,
      url: view.url,
      events: view.events,
      description: view.description,
      state: view.state,
      apiVersion: view.apiVersion,
      consecutiveFailures: view.consecutiveFailures,
      disabledAt: iso(view.disabledAt),
      disabledReason: view.disabledReason,
      createdAt: iso(view.createdAt),
      updatedAt: iso(view.updatedAt),
      ...(secret === undefined ? {} : { secret }),
    });
  }

  webhooks(views: WebhookView[]) {
    return { webhooks: views.map((view) => this.webhook(view)) };
  }

  oneDelivery(view: DeliveryView) {
    return this.cased(delivery(view));
  }

  deliveryPage(page: DeliveryPage) {
    return this.cased({ deliveries: page.deliveries.map(delivery), nextCursor: page.nextCursor });
  }

  eventDeliveries(views: EventDeliveryView[]) {
    return this.cased({ deliveries: views.map((view) => ({ webhookId: view.webhookId, ...delivery(view) })) });
  }

  stats(stats: WebhookStats) {
    return this.cased({
      ...stats,
      since: iso(stats.since),
      until: iso(stats.until),
      buckets: stats.buckets.map((b) => ({ ...b, start: iso(b.start) })),
    });
  }

  testAccepted(eventId: string) {
    return this.cased({ eventId });
  }

  private cased<T>(value: T): T {
    return inFamilyCase(value, this.family);
  }
}

function delivery(view: DeliveryView) {
  return {
    id: view.id,
    eventId: view.eventId,
    eventType: view.eventType,
    status: view.status,
    attempts: view.attempts.map((a) => ({
      at: iso(a.at),
      durationMs: a.durationMs,
      httpStatus: a.httpStatus,
      error: a.error,
      responseBody: a.responseBody,
      // names in lowercase: the family's casing leaves them as they are
      requestHeaders: a.requestHeaders,
    })),
    nextAttemptAt: iso(view.nextAttemptAt),
    createdAt: iso(view.createdAt),
  };
}

function iso<T extends Date | null>(date: T): T extends Date ? string : string | null {
  return (date === null ? null : date.toISOString()) as T extends Date ? string : string | null;
}
