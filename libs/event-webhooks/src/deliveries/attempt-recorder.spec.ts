import { eventWebhooksHarness } from '../testing/event-webhooks.harness';
import { AttemptRecorder, tallyOf } from './attempt-recorder';
import { DELIVERY_TOPIC } from './delivery-work';

describe(AttemptRecorder.name, () => {
  const setUp = async (disableAfter = 3) => {
    const h = eventWebhooksHarness({ disableAfter });
    const sut = new AttemptRecorder(h.deliveries, h.webhooks, h.queue, h.uow, h.clock, h.settings, h.observer, h.notices, h.stats);
    const account = await h.accounts.create('Acme', h.clock.now());
    const { webhook } = await h.service.create(account.id, { url: 'https://hooks.example.com/in', events: ['email.delivered'] }, 'v3');
    const data = { email: 'a@example.com', idSending: 1, sendingType: 1, diagCode: '250', deliveredAt: '2025-11-22T02:00:00.000Z' };
    await h.intake.publish(Array.from({ length: 4 }, () => ({ accountId: account.id, type: 'email.delivered', data })));
    h.queue.take(DELIVERY_TOPIC);
    const jobs = await h.deliveries.findForDispatch([...h.deliveries.rows.keys()]);
    const claimed = async (token: string) => {
      await h.deliveries.claimMany(jobs.map((j) => ({ id: j.delivery.id, seq: 0 })), h.clock.now(), new Date(h.clock.nowMs() + 60_000), token);
      return jobs.map((j) => j.delivery);
    };
    const attempt = (httpStatus: number) => ({ at: h.clock.now(), durationMs: 5, httpStatus, error: null, responseBody: '', requestHeaders: {} });
    return { h, sut, webhook, claimed, attempt };
  };

  it('records the attempts that end together in one transaction, each webhook counted once in completion order', async () => {
    const { h, sut, webhook, claimed, attempt } = await setUp(10);
    const [a, b, c] = await claimed('t');
    const runs = h.uow.runs;
    const results = await Promise.all([
      sut.record({ delivery: a, claimToken: 't', attempt: attempt(500), success: false }),
      sut.record({ delivery: b, claimToken: 't', attempt: attempt(200), success: true }),
      sut.record({ delivery: c, claimToken: 't', attempt: attempt(500), success: false }),
    ]);
    expect(h.uow.runs - runs).toBe(1);
    // Only attempts already made are recorded: lost in a power cut, they are made again.
    expect(h.uow.durability.at(-1)).toBe(false);
    expect(results.map((r) => r?.outcome.status)).toEqual(['retrying', 'succeeded', 'retrying']);
    // a failure, a success, a failure: the counter restarted at the success
    expect(h.webhooks.rows.get(webhook.id)!.consecutiveFailures).toBe(1);
    expect(h.queue.take(DELIVERY_TOPIC).map((i) => i.payload.seq)).toEqual([1, 1]);
  });

  it('retries the failures of a batch that ends in a success on the same webhook (they were cancelled as if it were deleted)', async () => {
    const { h, sut, webhook, claimed, attempt } = await setUp(10);
    const [a, b, c] = await claimed('t');
    const results = await Promise.all([
      sut.record({ delivery: a, claimToken: 't', attempt: attempt(500), success: false }),
      sut.record({ delivery: b, claimToken: 't', attempt: attempt(500), success: false }),
      sut.record({ delivery: c, claimToken: 't', attempt: attempt(200), success: true }),
    ]);
    expect(results.map((r) => r?.outcome.status)).toEqual(['retrying', 'retrying', 'succeeded']);
    expect([a, b, c].map((d) => h.deliveries.rows.get(d.id)!.status)).toEqual(['retrying', 'retrying', 'succeeded']);
    expect(h.webhooks.rows.get(webhook.id)!.consecutiveFailures).toBe(0);
    expect(h.queue.take(DELIVERY_TOPIC).map((i) => i.payload.deliveryId).sort()).toEqual([a.id, b.id].sort());
  });

  it('cancels the failures, and only those, of a webhook deleted while its attempts were made', async () => {
    const { h, sut, webhook, claimed, attempt } = await setUp(10);
    const [a, b] = await claimed('t');
    h.webhooks.rows.delete(webhook.id);
    const results = await Promise.all([
      sut.record({ delivery: a, claimToken: 't', attempt: attempt(500), success: false }),
      sut.record({ delivery: b, claimToken: 't', attempt: attempt(200), success: true }),
    ]);
    expect(results.map((r) => r?.outcome.status)).toEqual(['cancelled', 'succeeded']);
    expect(h.queue.take(DELIVERY_TOPIC)).toEqual([]);
  });

  it('neither records nor counts an attempt whose claim was lost', async () => {
    const { h, sut, webhook, claimed, attempt } = await setUp(1);
    const [a] = await claimed('t');
    h.deliveries.rows.get(a.id)!.claimToken = 'someone-else';
    expect(await sut.record({ delivery: a, claimToken: 't', attempt: attempt(500), success: false })).toBeNull();
    expect(h.webhooks.rows.get(webhook.id)).toMatchObject({ consecutiveFailures: 0, state: 'enabled' });
    expect(h.deliveries.rows.get(a.id)!.attempts).toEqual([]);
  });

  it('drops a late attempt of a claim that ran out while the delivery was rescheduled (issue 12, race 7a)', async () => {
    const { h, sut, webhook, claimed, attempt } = await setUp(10);
    const [a] = await claimed('t');
    // The worker's lease runs out mid-call; a manual retry takes the delivery (seq 0 -> 1), its
    // claim token left as it was, and queues a fresh item.
    h.clock.advance(60_001);
    await h.service.retryDelivery(a.accountId, webhook.id, a.id);
    expect(h.queue.take(DELIVERY_TOPIC).map((i) => i.payload.seq)).toEqual([1]);
    expect(h.deliveries.rows.get(a.id)).toMatchObject({ status: 'pending', seq: 1, claimToken: 't' });
    // The first worker's call ends now: its attempt is not recorded over the retry.
    expect(await sut.record({ delivery: a, claimToken: 't', attempt: attempt(500), success: false })).toBeNull();
    expect(h.deliveries.rows.get(a.id)).toMatchObject({ status: 'pending', seq: 1, attempts: [], attemptCount: 0 });
    expect(h.webhooks.rows.get(webhook.id)!.consecutiveFailures).toBe(0);
    expect(h.queue.take(DELIVERY_TOPIC)).toEqual([]);
  });

  it('counts the failures of one batch one by one: webhook.failing tells of the one that reached half the threshold', async () => {
    const { h, sut, webhook, claimed, attempt } = await setUp(6);
    const failing = jest.spyOn(h.notices, 'failing');
    const deliveries = await claimed('t');
    await Promise.all(deliveries.map((delivery, i) => sut.record({ delivery, claimToken: 't', attempt: attempt(500 + i), success: false })));
    expect(h.webhooks.rows.get(webhook.id)!.consecutiveFailures).toBe(4);
    expect(failing).toHaveBeenCalledTimes(1);
    expect(failing.mock.calls[0].slice(1)).toEqual([3, expect.objectContaining({ httpStatus: 502 })]);
  });

  it('disables the webhook in the batch that reaches the threshold: its failures are skipped, waiting deliveries too', async () => {
    const { h, sut, webhook, claimed, attempt } = await setUp(2);
    const [a, b, c, d] = await claimed('t');
    h.deliveries.rows.get(d.id)!.claimToken = null; // d waits, unclaimed
    const results = await Promise.all([a, b, c].map((delivery) => sut.record({ delivery, claimToken: 't', attempt: attempt(503), success: false })));
    expect(results.map((r) => r?.outcome.status)).toEqual(['skipped', 'skipped', 'skipped']);
    // the third failure came after the second disabled the webhook: the counter stops at 2
    expect(h.webhooks.rows.get(webhook.id)).toMatchObject({ state: 'disabled', disabledReason: 'consecutive_failures', consecutiveFailures: 2 });
    expect(h.deliveries.rows.get(d.id)!.status).toBe('skipped');
    expect(h.observer.disables).toEqual([expect.objectContaining({ webhookId: webhook.id, reason: 'consecutive_failures', consecutiveFailures: 2 })]);
    expect(h.queue.take(DELIVERY_TOPIC)).toEqual([]);
  });
});

describe(tallyOf.name, () => {
  it('counts, per webhook, the failures after its last success', () => {
    const on = (webhookId: string, success: boolean) => ({ delivery: { webhookId }, success });
    expect(tallyOf([on('a', false), on('b', true), on('a', true), on('a', false), on('a', false), on('b', false)])).toEqual([
      { webhookId: 'a', failures: 2, reset: true },
      { webhookId: 'b', failures: 1, reset: true },
    ]);
    expect(tallyOf([on('c', false), on('c', false)])).toEqual([{ webhookId: 'c', failures: 2, reset: false }]);
  });
});
