import { Module } from '@nestjs/common';
import { EventWebhooksModule } from '../../../../libs/event-webhooks/src';
import { V2EventFeedController, V3EventFeedController } from './event-feed.controller';
import { EventTypesController } from './event-types.controller';
import { InternalEventsController } from './internal-events.controller';
import { V2WebhooksController } from './v2-webhooks.controller';
import { V3WebhooksController } from './v3-webhooks.controller';

/** /v3/Webhook*, /v2/webhooks*, the event types and the event feed of both families, and POST /internal/events*. */
@Module({
  imports: [EventWebhooksModule],
  controllers: [V3WebhooksController, V2WebhooksController, EventTypesController, V3EventFeedController, V2EventFeedController, InternalEventsController],
})
export class EventWebhooksHttpModule {}
