
import { eventWebhooksHarness } from '../testing/event-webhooks.harness';
import { DELIVERY_TOPIC } from './delivery-work';
import { SweepSettings } from '../../../kernel/src';
import { DeliverySweeper } from './delivery-sweeper';
import { InMemoryJobLease } from '../../../kernel/src/testing/kernel-fakes';

describe(DeliverySweeper.name, () => {
  const setUp = async () => {
    const h = eventWebhooksHarness();
    const lease = new InMemoryJobLease();
    const sut = new DeliverySweeper(h.deliveries, h.queue, h.uow, lease, h.clock, new SweepSettings(30_000, 120_000));
    const account = await h.accounts.create('Acme', h.clock.now());
    await h.service.create(account.id, { url: 'https://hooks.example.com/in', events: ['email.delivered'] }, 'v3');
    const data = { email: 'a@example.com', idSending: 1, sendingType: 1, diagCode: '250', deliveredAt: '2025-11-22T02:00:00.000Z' };
    await h.intake.publish([{ accountId: account.id, type: 'email.delivered', data }]);
    return { h, sut, lease };
  };

  it('re-queues a waiting delivery whose item was lost, once it is stale, with a new seq that outdates the old item', async () => {
    const { h, sut } = await setUp();
    const [lost] = h.queue.take(DELIVERY_TOPIC); // the queue lost it
    h.clock.advance(60_000);
    expect(await sut.sweep()).toBe(0); // not stale yet
    h.clock.advance(61_000);
    expect(await sut.sweep()).toBe(1);
    const [item] = h.queue.take(DELIVERY_TOPIC);
    expect(item.payload).toEqual({ deliveryId: lost.payload.deliveryId, seq: 1 });
    expect(await sut.sweep()).toBe(0); // rescheduled for now: not stale again until staleAfter passes
    expect(await h.worker.handle({ id: 'old', topic: DELIVERY_TOPIC, payload: lost.payload, deliveryCount: 1, failures: 0 })).toEqual({ kind: 'done' });
    expect(h.http.requests).toHaveLength(0); // the old item is outdated
    await h.worker.handle({ id: 'new', topic: DELIVERY_TOPIC, payload: item.payload, deliveryCount: 1, failures: 0 });
    expect(h.http.requests).toHaveLength(1);
  });

  it('skips the run while another process holds its lease', async () => {
    const { h, sut, lease } = await setUp();
    h.queue.take(DELIVERY_TOPIC);
    h.clock.advance(180_000);
    await lease.acquire('delivery-sweeper', 'another-process', h.clock.now(), 60_000);
    expect(await sut.sweep()).toBe(0);
    h.clock.advance(61_000);
    expect(await sut.sweep()).toBe(1);
  });
});
