
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

  it('leaves a delivery whose item may still wait in the queue behind older items, and takes it for lost once the queue has moved past it', async () => {
    const { h, sut } = await setUp();
    const [mine] = h.queue.take(DELIVERY_TOPIC);
    // a backlog due before it still waits in the queue: its own item may be behind it
    await h.queue.enqueue([{ topic: DELIVERY_TOPIC, payload: { deliveryId: 'del_backlog', seq: 0 }, runAt: new Date(h.clock.nowMs() - 1_000) }]);
    h.clock.advance(600_000);
    expect(await sut.sweep()).toBe(0);
    // the queue handed out the backlog and holds nothing older: the delivery's item was lost
    h.queue.take(DELIVERY_TOPIC);
    expect(await sut.sweep()).toBe(1);
    expect(h.queue.take(DELIVERY_TOPIC).map((i) => i.payload)).toEqual([{ deliveryId: mine.payload.deliveryId, seq: 1 }]);
  });

  it('leaves a delivery just handed out after a long wait in the queue, unclaimed in a dispatcher, until it has been out of the queue for staleAfter', async () => {
    const { h, sut } = await setUp();
    await h.queue.enqueue([{ topic: DELIVERY_TOPIC, payload: { deliveryId: 'del_backlog', seq: 0 }, runAt: new Date(h.clock.nowMs() - 1_000) }]);
    h.clock.advance(100_000);
    expect(await sut.sweep()).toBe(0);
    h.clock.advance(200_000);
    expect(await sut.sweep()).toBe(0);
    // the backlog drains: the delivery's item is handed out, it waits for a place in its lane
    const [inHand] = h.queue.take(DELIVERY_TOPIC).filter((i) => i.payload.deliveryId !== 'del_backlog');
    h.clock.advance(1_000);
    expect(await sut.sweep()).toBe(0);
    h.clock.advance(60_000);
    expect(await sut.sweep()).toBe(0);
    // two minutes out of the queue and still unclaimed: lost with the dispatcher that held it
    h.clock.advance(61_000);
    expect(await sut.sweep()).toBe(1);
    expect(h.queue.take(DELIVERY_TOPIC).map((i) => i.payload)).toEqual([{ deliveryId: inHand.payload.deliveryId, seq: 1 }]);
  });

  it('sweeps by due time alone when the queue cannot tell what waits in it (NATS unreachable)', async () => {
    const { h, sut } = await setUp();
    h.queue.take(DELIVERY_TOPIC);
    await h.queue.enqueue([{ topic: DELIVERY_TOPIC, payload: { deliveryId: 'del_backlog', seq: 0 }, runAt: new Date(h.clock.nowMs() - 1_000) }]);
    jest.spyOn(h.queue, 'oldestWaiting').mockRejectedValue(new Error('NATS is not connected'));
    h.clock.advance(121_000);
    expect(await sut.sweep()).toBe(1);
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
