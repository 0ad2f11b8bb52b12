import { NewEvent } from '../../../kernel/src';
import { DELIVERY_TOPIC } from '../deliveries/delivery-work';
import { eventWebhooksHarness, EventWebhooksHarness } from '../testing/event-webhooks.harness';
import { EventIntakeService } from './event-intake.service';

const delivered = { email: 'jane@example.com', idSending: 1001, sendingType: 1, diagCode: '250 2.0.0 OK', deliveredAt: '2025-11-22T02:00:00.000Z' };

describe(EventIntakeService.name, () => {
  let h: EventWebhooksHarness;
  let sut: EventIntakeService;
  let acme: number;

  beforeEach(async () => {
    h = eventWebhooksHarness();
    sut = h.intake;
    acme = (await h.accounts.create('Acme', h.clock.now())).id;
  });

  const event = (overrides: Partial<NewEvent> = {}): NewEvent => ({ accountId: acme, type: 'email.delivered', data: delivered, ...overrides });
  const webhook = (events: string[], family: 'v3' | 'v2' = 'v3', accountId = acme) =>
    h.service.create(accountId, { url: 'https://hooks.example.com/in', events }, family).then((r) => r.webhook);

  it('stores one delivery per subscribed webhook and enqueues it inside the same unit of work', async () => {
    const subscribed = await webhook(['email.delivered']);
    const alsoSubscribed = await webhook(['email.bounced', 'email.delivered']);
    await webhook(['email.bounced']);

    const [id] = await sut.publish([event()]);

    expect(id).toMatch(/^evt_[0-9a-z]{26}$/);
    const rows = [...h.deliveries.rows.values()];
    expect(rows.map((d) => d.webhookId).sort()).toEqual([subscribed.id, alsoSubscribed.id].sort());
    expect(rows.every((d) => d.eventId === id && d.status === 'pending' && d.nextAttemptAt?.getTime() === h.clock.nowMs())).toBe(true);
    expect(h.queue.items).toEqual(rows.map((d) => ({ topic: DELIVERY_TOPIC, payload: { deliveryId: d.id, seq: 0, firstAttempt: { webhookId: d.webhookId, accountId: d.accountId } }, runAt: h.clock.now(), sweptBackIfLost: true })));
    expect(h.queue.enqueuedInTransaction).toEqual([true]);
  });

  it('records a skipped delivery, with nothing queued, for a subscribed disabled webhook', async () => {
    const disabled = await webhook(['email.delivered']);
    await h.service.disable(acme, disabled.id);

    await sut.publish([event()]);

    expect([...h.deliveries.rows.values()]).toEqual([expect.objectContaining({ webhookId: disabled.id, status: 'skipped', nextAttemptAt: null })]);
    expect(h.queue.items).toEqual([]);
  });

  it('never fans out to another account', async () => {
    const other = (await h.accounts.create('Other', h.clock.now())).id;
    await webhook(['email.delivered'], 'v3', other);
    await sut.publish([event()]);
    expect(h.deliveries.rows.size).toBe(0);
  });

  it('serializes the envelope once per family, keys in contract order, one id for all', async () => {
    await webhook(['email.delivered'], 'v3');
    await webhook(['email.delivered'], 'v2');
    const [id] = await sut.publish([event({ created: 1732238400 })]);
    const stored = h.events.find(acme, id)!;
    const account = { id: acme, name: 'Acme' };
    expect(stored.bodies.v3).toBe(JSON.stringify({ id, type: 'email.delivered', created: 1732238400, apiVersion: 'v3', account, data: delivered }));
    expect(stored.bodies.v2).toBe(JSON.stringify({ id, type: 'email.delivered', created: 1732238400, apiVersion: 'v2', account, data: delivered }));
    expect(Object.keys(JSON.parse(stored.bodies.v3!))).toEqual(['id', 'type', 'created', 'apiVersion', 'account', 'data']);
  });

  it('uses the producer id and accepts a repeated id once, with the same answer', async () => {
    await webhook(['email.delivered']);
    const first = await sut.publish([event({ id: 'evt_order_42' })]);
    const again = await sut.publish([event({ id: 'evt_order_42' })]);
    const inBatch = await sut.publish([event({ id: 'evt_twice' }), event({ id: 'evt_twice' })]);
    expect(first).toEqual(['evt_order_42']);
    expect(again).toEqual(['evt_order_42']);
    expect(inBatch).toEqual(['evt_twice', 'evt_twice']);
    expect([...h.deliveries.rows.values()].map((d) => d.eventId).sort()).toEqual(['evt_order_42', 'evt_twice']);
    expect(h.queue.items).toHaveLength(2);
  });

  it('keeps producer ids apart per account', async () => {
    const other = (await h.accounts.create('Other', h.clock.now())).id;
    await webhook(['email.delivered']);
    await webhook(['email.delivered'], 'v3', other);
    await sut.publish([event({ id: 'evt_same' }), event({ id: 'evt_same', accountId: other })]);
    expect([...h.deliveries.rows.values()].map((d) => [d.accountId, d.eventId]).sort()).toEqual([
      [acme, 'evt_same'],
      [other, 'evt_same'],
    ]);
  });

  it('answers created as now in Unix seconds when the producer does not give it', async () => {
    await webhook(['email.delivered']);
    const [id] = await sut.publish([event()]);
    expect(h.events.find(acme, id)!.created).toBe(Math.floor(h.clock.nowMs() / 1000));
  });

  it('refuses a whole batch when one event is invalid, naming it', async () => {
    await webhook(['email.delivered']);
    const bad = { ...delivered, idSending: 'x' };
    await expect(sut.publish([event(), event({ data: bad })])).rejects.toMatchObject({
      code: 'invalid_parameter',
      message: 'events[1].data.idSending must be integer',
    });
    expect(h.events.size).toBe(0);
    expect(h.deliveries.rows.size).toBe(0);
  });

  it.each([
    [{ type: 'email.nope' }, 'type: unknown event type'],
    [{ data: [] as unknown as Record<string, unknown> }, 'data must be a JSON object'],
    [{ id: 'order-1' }, 'id must start with evt_'],
    [{ created: 1732238400000 }, 'created must be Unix time in seconds'],
    [{ accountId: 0 }, 'accountId must be a positive integer'],
    [{ extra: 1 } as Partial<NewEvent>, 'extra is not an accepted field'],
  ])('refuses %j as invalid_parameter', async (overrides, message) => {
    await expect(sut.publish([event(overrides)])).rejects.toMatchObject({ code: 'invalid_parameter', message: expect.stringContaining(message) });
  });

  it('takes a created up to 5 minutes ahead of its clock (drift), and refuses one further ahead', async () => {
    const now = Math.floor(h.clock.nowMs() / 1000);
    await expect(sut.publish([event({ created: now + 300 })])).resolves.toHaveLength(1);
    await expect(sut.publish([event(), event({ created: now + 301 })])).rejects.toMatchObject({
      code: 'invalid_parameter',
      message: "events[1].created must not be in the future (more than 5 minutes ahead of the server's clock)",
    });
  });

  it('answers not_found for an unknown account', async () => {
    await expect(sut.publish([event({ accountId: 999 })])).rejects.toMatchObject({ code: 'not_found' });
  });

  it('takes at most 1000 events at once', async () => {
    await expect(sut.publish(Array.from({ length: 1001 }, () => event()))).rejects.toMatchObject({ code: 'limit_exceeded' });
    await expect(sut.publish(Array.from({ length: 1000 }, () => event()))).resolves.toHaveLength(1000);
  });
});
