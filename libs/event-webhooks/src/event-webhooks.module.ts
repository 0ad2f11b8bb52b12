import { Module } from '@nestjs/common';
import { Clock, EventPublisher, SecretBox, UnitOfWork, WorkQueue } from '../../kernel/src';
import { EventCatalog } from './catalog/event-catalog';
import { AttemptRecorder } from './deliveries/attempt-recorder';
import { DeliveryObserver } from './deliveries/delivery-observer';
import { DeliveryRepository } from './deliveries/delivery.repository';
import { EventDeliveriesService } from './event-feed/event-deliveries.service';
import { EventFeedService } from './event-feed/event-feed.service';
import { DeliveryHandler } from './deliveries/delivery.handler';
import { DispatchLanes } from './deliveries/lanes';
import { WebhookCache } from './deliveries/webhook-cache';
import { EventWebhooksSettings } from './event-webhooks.settings';
import { EventRetentionService } from './intake/event-retention.service';
import { EventIntakeService } from './intake/event-intake.service';
import { WebhookRepository } from './webhooks/webhook.repository';
import { OperationalEvents } from './webhooks/operational-events';
import { WebhookStatsRepository } from './stats/webhook-stats.repository';
import { WebhookStatsService } from './stats/webhook-stats.service';
import { WebhooksService } from './webhooks/webhooks.service';

/**
 * Event webhooks: the resource, the event intake (the kernel's EventPublisher, for any module
 * that emits account events) and the delivery handler (run by the dispatcher). Repositories,
 * queue, clock, HTTP and the settings come from the infrastructure module.
 */
@Module({
  providers: [
    { provide: EventCatalog, useFactory: () => new EventCatalog() },
    {
      provide: DispatchLanes,
      useFactory: (settings: EventWebhooksSettings, clock: Clock) =>
        new DispatchLanes(
          { perOrigin: settings.originConcurrency, firstAttempts: settings.concurrency, retries: Math.max(1, Math.ceil(settings.concurrency / 2)) },
          () => clock.nowMs(),
        ),
      inject: [EventWebhooksSettings, Clock],
    },
    { provide: WebhookCache, useFactory: (webhooks: WebhookRepository, box: SecretBox) => new WebhookCache(webhooks, box), inject: [WebhookRepository, SecretBox] },
    {
      provide: AttemptRecorder,
      useFactory: (...args: ConstructorParameters<typeof AttemptRecorder>) => new AttemptRecorder(...args),
      inject: [DeliveryRepository, WebhookRepository, WorkQueue, UnitOfWork, Clock, EventWebhooksSettings, DeliveryObserver, OperationalEvents, WebhookStatsRepository],
    },
    { provide: OperationalEvents, useFactory: (intake: EventIntakeService) => new OperationalEvents(intake), inject: [EventIntakeService] },
    EventIntakeService,
    { provide: EventPublisher, useExisting: EventIntakeService },
    WebhooksService,
    EventFeedService,
    EventDeliveriesService,
    WebhookStatsService,
    DeliveryHandler,
    EventRetentionService,
  ],
  exports: [EventCatalog, EventIntakeService, EventPublisher, WebhooksService, EventFeedService, EventDeliveriesService, WebhookStatsService, DeliveryHandler, EventRetentionService],
})
export class EventWebhooksModule {}
