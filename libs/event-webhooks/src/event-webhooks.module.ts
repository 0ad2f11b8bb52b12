import { Module } from '@nestjs/common';
import type { AppConfig } from '../../../config/load-config';
import { APP_CONFIG } from '../../../config/config.token';
import { EventPublisher } from '../../kernel/src';
import { EventCatalog } from './catalog/event-catalog';
import { EventFeedService } from './event-feed/event-feed.service';
import { DeliveryWorker } from './deliveries/delivery.worker';
import { OriginLimiter } from './deliveries/origin-limiter';
import { EventWebhooksSettings } from './event-webhooks.settings';
import { EventIntakeService } from './intake/event-intake.service';
import { WebhooksService } from './webhooks/webhooks.service';

/**
 * Event webhooks: the resource, the event intake (the kernel's EventPublisher, for any module
 * that emits account events) and the delivery worker (run by the dispatcher). Repositories,
 * queue, clock and HTTP come from the infrastructure module.
 */
@Module({
  providers: [
    { provide: EventCatalog, useFactory: () => new EventCatalog() },
    {
      provide: EventWebhooksSettings,
      useFactory: ({ delivery, secrets }: AppConfig) =>
        new EventWebhooksSettings(delivery.retryScheduleMs, delivery.disableAfter, delivery.allowPrivateTargets, secrets.rotationGraceMs, delivery.timeoutMs, delivery.originConcurrency),
      inject: [APP_CONFIG],
    },
    { provide: OriginLimiter, useFactory: (settings: EventWebhooksSettings) => new OriginLimiter(settings.originConcurrency), inject: [EventWebhooksSettings] },
    EventIntakeService,
    { provide: EventPublisher, useExisting: EventIntakeService },
    WebhooksService,
    EventFeedService,
    DeliveryWorker,
  ],
  exports: [EventCatalog, EventIntakeService, EventPublisher, WebhooksService, EventFeedService, DeliveryWorker],
})
export class EventWebhooksModule {}
