import { TypeormDeliveryRepository } from '../../libs/adapters/sql/src/event-webhooks/typeorm-delivery.repository';
import { TypeormEventRepository } from '../../libs/adapters/sql/src/event-webhooks/typeorm-event.repository';
import { TypeormWebhookRepository } from '../../libs/adapters/sql/src/event-webhooks/typeorm-webhook.repository';
import { TypeormWebhookStatsRepository } from '../../libs/adapters/sql/src/event-webhooks/typeorm-webhook-stats.repository';
import { InMemoryDeliveryRepository } from '../../libs/event-webhooks/src/testing/in-memory-delivery.repository';
import { InMemoryEventRepository } from '../../libs/event-webhooks/src/testing/in-memory-event.repository';
import { InMemoryWebhookRepository } from '../../libs/event-webhooks/src/testing/in-memory-webhook.repository';
import { InMemoryWebhookStatsRepository } from '../../libs/event-webhooks/src/testing/in-memory-webhook-stats.repository';
import { openTestDatabase } from '../support/databases';
import { profileAvailable } from '../support/test-app';
import { describeEventWebhooksPorts, EventWebhooksPorts } from './event-webhooks-ports.contract';

describeEventWebhooksPorts('in-memory fakes', async (): Promise<EventWebhooksPorts> => {
  const webhooks = new InMemoryWebhookRepository();
  const events = new InMemoryEventRepository();
  const deliveries = new InMemoryDeliveryRepository(events, (id) => webhooks.rows.get(id) ?? null);
  return { webhooks, events, deliveries, stats: new InMemoryWebhookStatsRepository(deliveries), transaction: (work) => work(), close: async () => undefined };
});

for (const kind of ['sqlite', 'mysql'] as const) {
  describeEventWebhooksPorts(kind === 'sqlite' ? 'SQL on SQLite' : 'SQL on MariaDB', async (): Promise<EventWebhooksPorts | null> => {
    if (kind === 'mysql' && !(await profileAvailable('mysql-nats'))) return null;
    const database = await openTestDatabase(kind);
    const { db } = database;
    return {
      webhooks: new TypeormWebhookRepository(db),
      events: new TypeormEventRepository(db),
      deliveries: new TypeormDeliveryRepository(db),
      stats: new TypeormWebhookStatsRepository(db),
      transaction: (work) => db.transaction(work),
      close: () => database.drop(),
    };
  });
}
