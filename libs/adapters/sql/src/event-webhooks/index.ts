import { DeliveryRepository } from '../../../../event-webhooks/src/deliveries/delivery.repository';
import { EventFeedRepository } from '../../../../event-webhooks/src/event-feed/event-feed.repository';
import { EventRepository } from '../../../../event-webhooks/src/intake/event.repository';
import { WebhookStatsRepository } from '../../../../event-webhooks/src/stats/webhook-stats.repository';
import { WebhookRepository } from '../../../../event-webhooks/src/webhooks/webhook.repository';
import { TypeormDatabase } from '../typeorm-database';
import { TypeormDeliveryRepository } from './typeorm-delivery.repository';
import { TypeormEventFeedRepository } from './typeorm-event-feed.repository';
import { TypeormEventRepository } from './typeorm-event.repository';
import { TypeormWebhookRepository } from './typeorm-webhook.repository';
import { TypeormWebhookStatsRepository } from './typeorm-webhook-stats.repository';

/** Port -> adapter pairs of the event-webhooks lib, spread into typeorm-repositories.ts. */
export const EVENT_WEBHOOK_REPOSITORIES: Array<[abstract new (...args: never[]) => object, new (db: TypeormDatabase) => object]> = [
  [WebhookRepository, TypeormWebhookRepository],
  [EventRepository, TypeormEventRepository],
  [DeliveryRepository, TypeormDeliveryRepository],
  [EventFeedRepository, TypeormEventFeedRepository],
  [WebhookStatsRepository, TypeormWebhookStatsRepository],
];
