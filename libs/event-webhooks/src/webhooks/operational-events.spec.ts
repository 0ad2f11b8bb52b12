import { ReceivedWork } from '../../../kernel/src';
import { DELIVERY_TOPIC } from '../deliveries/delivery-work';
import { eventWebhooksHarness, EventWebhooksHarness } from '../testing/event-webhooks.harness';
import { crossedFailing, failingThreshold, OperationalEvents } from './operational-events';

const delivered = { email: 'jane@example.com', idSending: 1001, sendingType: 1, diagCode: '250 2.0.0 OK', deliveredAt: '2025-11-22T02:00:00.000Z' };
const FAILING_URL = 'https://failing.example.com/in';
const WATCHER_URL = 'https://watcher.example.com/ops';

describe(OperationalEvents.name, () => {
  let h: EventWebhooksHarness;
  let acme: number;

  beforeEach(async () => {
    // no retries: every event is one attempt, so N events are N consecutive failures
    h = eventWebhooksHarness({ retryScheduleMs: [], disableAfter: 4 });
    acme = (await h.accounts.create('Acme', h.clock.now())).id;
    h.http.respond = (request) => (request.url === FAILING_URL ? { status: 503 } : { status: 200 });
  });

  const create = async (url: string, events: string[]) => (await h.service.create(acme, { url, events }, 'v3')).webhook;
  const publish = (count: number) => h.intake.publish(Array.from({ length: count }, () => ({ accountId: acme, type: 'email.delivered', data: delivered })));
  const drain = async () => {
    for (let items = h.queue.take(DELIVERY_TOPIC); items.length > 0; items = h.queue.take(DELIVERY_TOPIC)) {
      for (const item of items) await h.worker.handle({ id: 'w', topic: item.topic, payload: item.payload, deliveryCount: 1, failures: 0 } as ReceivedWork);
    }
  };
  const received = (url: string) => h.http.requests.filter((r) => r.url === url).map((r) => JSON.parse(String(r.body)) as { type: string; data: Record<string, unknown> });

  it('tells the other subscribed webhooks once when a webhook starts failing and once when it is disabled; never the webhook itself', async () => {
    const failing = await create(FAILING_URL, ['email.delivered', 'webhook.failing', 'webhook.disabled']);
    const watcher = await create(WATCHER_URL, ['webhook.failing', 'webhook.disabled']);
    await create('https://other.example.com/in', ['email.delivered']);

    await publish(6);
    await drain();

    const notices = received(WATCHER_URL);
    expect(notices.map((n) => n.type)).toEqual(['webhook.failing', 'webhook.disabled']);
    expect(notices[0].data).toEqual({
      webhookId: failing.id,
      url: FAILING_URL,
      consecutiveFailures: 2,
      lastAttempt: { at: h.clock.now().toISOString(), httpStatus: 503, error: null },
    });
    expect(notices[1].data).toEqual({ webhookId: failing.id, url: FAILING_URL, reason: 'consecutive_failures', consecutiveFailures: 4, disabledAt: h.clock.now().toISOString() });
    // the webhook they are about has no delivery of them, not even a skipped one
    const aboutItself = [...h.deliveries.rows.values()].filter((d) => d.webhookId === failing.id && d.eventType.startsWith('webhook.'));
    expect(aboutItself).toEqual([]);
    expect(h.catalog.checkData('webhook.failing', notices[0].data)).toEqual({ ok: true });
    expect(h.catalog.checkData('webhook.disabled', notices[1].data)).toEqual({ ok: true });
    expect(watcher.state).toBe('enabled');
  });

  it('starts a new run of failures after enable: failing is told again', async () => {
    const failing = await create(FAILING_URL, ['email.delivered']);
    await create(WATCHER_URL, ['webhook.failing']);
    await publish(2);
    await drain();
    await h.service.enable(acme, failing.id);
    await publish(3);
    await drain();
    expect(received(WATCHER_URL).map((n) => n.data.consecutiveFailures)).toEqual([2, 2]);
  });

  it('ends a run of failures with a success', async () => {
    const failing = await create(FAILING_URL, ['email.delivered']);
    await create(WATCHER_URL, ['webhook.failing']);
    await publish(2);
    await drain();
    h.http.respond = () => ({ status: 200 });
    await publish(1);
    await drain();
    h.http.respond = (request) => (request.url === FAILING_URL ? { status: 500 } : { status: 200 });
    await publish(3);
    await drain();
    // 2 failures (told), a success, 3 failures (told again, one short of disabling)
    expect(received(WATCHER_URL).map((n) => n.data.consecutiveFailures)).toEqual([2, 2]);
    expect(h.webhooks.rows.get(failing.id)!.state).toBe('enabled');
  });

  it('tells a webhook disabled by hand, with the reason manual', async () => {
    const webhook = await create(FAILING_URL, ['email.delivered']);
    await create(WATCHER_URL, ['webhook.disabled']);
    await h.service.disable(acme, webhook.id);
    await h.service.disable(acme, webhook.id); // already disabled: not told twice
    await drain();
    expect(received(WATCHER_URL).map((n) => n.data)).toEqual([
      { webhookId: webhook.id, url: FAILING_URL, reason: 'manual', consecutiveFailures: 0, disabledAt: h.clock.now().toISOString() },
    ]);
  });

  it('refuses producers that publish one, and keeps nothing of their batch', async () => {
    const notice = { accountId: acme, type: 'webhook.disabled', data: { webhookId: 'wh_1', url: 'https://x', reason: 'manual', consecutiveFailures: 0, disabledAt: '2025-11-22T02:00:00.000Z' } };
    await expect(h.intake.publish([notice])).rejects.toMatchObject({ code: 'invalid_parameter' });
    await expect(h.intake.publish([{ accountId: acme, type: 'email.delivered', data: delivered }, notice])).rejects.toMatchObject({
      code: 'invalid_parameter',
      message: expect.stringContaining('events[1].type'),
    });
    expect(h.events.size).toBe(0);
  });
});

describe(crossedFailing.name, () => {
  it('is half of the disabling count rounded up, crossed once per run', () => {
    expect(failingThreshold(10)).toBe(5);
    expect(failingThreshold(7)).toBe(4);
    expect(failingThreshold(1)).toBe(1);
    expect(crossedFailing(4, 5, 10)).toBe(true);
    expect(crossedFailing(0, 9, 10)).toBe(true);
    expect(crossedFailing(5, 6, 10)).toBe(false);
    expect(crossedFailing(3, 4, 10)).toBe(false);
  });
});
