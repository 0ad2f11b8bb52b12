import { V2EventFeedController, V3EventFeedController } from './event-feed.controller';
import { EventTypesController } from './event-types.controller';
import { InternalEventsController } from './internal-events.controller';
import { V2WebhooksController } from './v2-webhooks.controller';
import { V3WebhooksController } from './v3-webhooks.controller';

/** Every controller of the event-webhooks routes, for ApiModule. */
export const EVENT_WEBHOOK_CONTROLLERS = [V3WebhooksController, V2WebhooksController, EventTypesController, V3EventFeedController, V2EventFeedController, InternalEventsController];
