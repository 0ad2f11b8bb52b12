jest.mock('../../libs/automations/src/automations.settings', () => ({ ...jest.requireActual('../../libs/automations/src/automations.settings'), AUTOMATION_STEP_TOPIC: 'automation-step' }));
import { startReceiver } from '../support/receiver';
import { PROFILES, startTestApp } from '../support/test-app';

jest.setTimeout(300_000);
describe.each(PROFILES)('bench %s', (profile) => {
  it.each([['false']])('intake throughput, dispatcher %s', async (dispatcher) => {
    const sut = await startTestApp(profile, { env: { DISPATCHER_ENABLED: dispatcher, LOG_LEVEL: 'warn' } });
    const r = await startReceiver();
    try {
      const account = await sut.createAccount();
      await sut.http().post('/v3/Webhook').set('api-key', account.apiKey).send({ url: `${r.url}/a`, events: ['email.delivered'] }).expect(201);
      await sut.http().post('/v3/Webhook').set('api-key', account.apiKey).send({ url: `${r.url}/b`, events: ['email.delivered', 'email.bounced'] }).expect(201);
      const batch = () => ({ events: Array.from({ length: 1000 }, (_, i) => ({ accountId: account.id, type: 'email.delivered', data: { email: 'jane@example.com', idSending: i + 1, sendingType: 1, diagCode: '250 2.0.0 OK', deliveredAt: '2025-11-22T02:00:00.000Z' } })) });
      const send = () => sut.http().post('/internal/events/batch').set('authorization', `Bearer ${sut.tokens.internal}`).send(batch()).expect(202);
      await send();
      const { EventRepository, DeliveryRepository, EventCatalog, WebhookRepository } = require('../../libs/event-webhooks/src');
      const { WorkQueue, UnitOfWork } = require('../../libs/kernel/src');
      const { AccountRepository } = require('../../libs/accounts/src');
      const totals: Record<string, number> = {};
      const wrap = (token: unknown, method: string, label: string) => {
        const instance = sut.app.get(token as never) as Record<string, (...a: unknown[]) => unknown>;
        const original = instance[method].bind(instance);
        instance[method] = (...args: unknown[]) => {
          const t = performance.now();
          const result = original(...args);
          const done = () => (totals[label] = (totals[label] ?? 0) + performance.now() - t);
          if (result && typeof (result as Promise<unknown>).then === 'function') (result as Promise<unknown>).then(done, done);
          else done();
          return result;
        };
      };
      wrap(EventRepository, 'insertNew', 'events.insertNew');
      wrap(DeliveryRepository, 'insertMany', 'deliveries.insertMany');
      wrap(WorkQueue, 'enqueue', 'queue.enqueue');
      wrap(WebhookRepository, 'listForAccounts', 'webhooks.list');
      wrap(AccountRepository, 'findById', 'accounts.findById');
      wrap(EventCatalog, 'checkData', 'catalog.checkData');
      wrap(UnitOfWork, 'run', 'uow.run');
      const { EventIntakeService } = require('../../libs/event-webhooks/src');
      wrap(EventIntakeService, 'publish', 'intake.publish');
      for (const clients of [1, 4]) {
        const rounds = 10;
        const started = performance.now();
        await Promise.all(Array.from({ length: clients }, async () => { for (let i = 0; i < rounds; i++) await send(); }));
        const s = (performance.now() - started) / 1000;
        console.log(`${profile} dispatcher=${dispatcher} clients=${clients}: ${Math.round((clients * rounds * 1000) / s)} events/s (2 deliveries each) ${JSON.stringify(Object.fromEntries(Object.entries(totals).map(([k, v]) => [k, Math.round(v)])))} wall ${Math.round(s * 1000)}`);
        for (const k of Object.keys(totals)) delete totals[k];
      }
    } finally {
      await r.close();
      await sut.close();
    }
  });
});
