import { OutboundClosedError, ReceivedWork, WorkItem } from '../../../kernel/src';
import { isValid, isValidStandardWebhook, parseSignatureHeader } from '../../../signing/src';
import { eventWebhooksHarness, EventWebhooksHarness } from '../testing/event-webhooks.harness';
import { DELIVERY_TOPIC } from './delivery-work';
import { DeliveryHandler } from './delivery.handler';

const delivered = { email: 'jane@example.com', idSending: 1001, sendingType: 1, diagCode: '250 2.0.0 OK', deliveredAt: '2025-11-22T02:00:00.000Z' };

describe(DeliveryHandler.name, () => {
  let h: EventWebhooksHarness;
  let sut: DeliveryHandler;
  let acme: number;

  const setUp = async (settings: Parameters<typeof eventWebhooksHarness>[0] = {}) => {
    h = eventWebhooksHarness({ retryScheduleMs: [10_000, 60_000], disableAfter: 3, ...settings });
    sut = h.worker;
    acme = (await h.accounts.create('Acme', h.clock.now())).id;
  };
  beforeEach(() => setUp());

  const createWebhook = async (events = ['email.delivered']) => h.service.create(acme, { url: 'https://hooks.example.com/in', events }, 'v3');
  const publish = async () => (await h.intake.publish([{ accountId: acme, type: 'email.delivered', data: delivered }]))[0];
  const asWork = (item: WorkItem, deliveryCount = 1): ReceivedWork => ({ id: `w${Math.random()}`, topic: item.topic, payload: item.payload, deliveryCount, failures: 0 });
  /** Hands every queued item to the worker, the clock moved to each item's time first. */
  const drain = async () => {
    const outcomes = [];
    for (let items = h.queue.take(DELIVERY_TOPIC); items.length > 0; items = h.queue.take(DELIVERY_TOPIC)) {
      for (const item of items) {
        if (item.runAt && item.runAt > h.clock.now()) h.clock.set(item.runAt);
        outcomes.push(await sut.handle(asWork(item)));
      }
    }
    return outcomes;
  };
  const onlyDelivery = () => [...h.deliveries.rows.values()][0];
  /** Lets pending work run, 100 turns of the event loop at most, until `done()`. */
  const turns = async (done: () => boolean) => {
    for (let turn = 0; turn < 100 && !done(); turn++) await new Promise((r) => setImmediate(r));
  };
  /**
   * One place per origin and two deliveries of one webhook: the first one's call hangs until
   * `release()`, the second waits in the origin's lane meanwhile.
   */
  const secondWaitingBehindFirst = async () => {
    await setUp({ originConcurrency: 1 });
    const { webhook } = await createWebhook();
    await publish();
    await publish();
    const [first, second] = h.queue.take(DELIVERY_TOPIC);
    let answer!: () => void;
    const post = h.http.post.bind(h.http);
    h.http.post = async (request) => {
      if (h.http.requests.length === 0) await new Promise<void>((resolve) => (answer = resolve));
      return post(request);
    };
    const release = () => answer();
    const running = sut.handle(asWork(first));
    await new Promise((r) => setImmediate(r));
    const waiting = sut.handle(asWork(second));
    await new Promise((r) => setImmediate(r));
    return { webhook, second, release, running, waiting };
  };
  /** The first batch of attempts is recorded only once `release()` is called. */
  const holdFirstRecord = () => {
    let release: (() => void) | undefined;
    const recordAttempts = h.deliveries.recordAttempts.bind(h.deliveries);
    h.deliveries.recordAttempts = async (records) => {
      if (release === undefined) await new Promise<void>((resolve) => (release = resolve));
      return recordAttempts(records);
    };
    return { held: () => release !== undefined, release: () => release?.() };
  };

  it('hands an item back, due now, with no call and nothing recorded, once stopping (stop), nor calls when the HTTP client has closed', async () => {
    await createWebhook();
    await publish();
    const [item] = h.queue.take(DELIVERY_TOPIC);
    sut.stop();
    expect(await sut.handle(asWork(item))).toEqual({ kind: 'retry', at: h.clock.now() });
    expect(h.http.requests).toHaveLength(0);
    expect(onlyDelivery()).toMatchObject({ status: 'pending', attempts: [] });

    await setUp();
    await createWebhook();
    await publish();
    h.http.post = async () => {
      throw new OutboundClosedError();
    };
    const [again] = h.queue.take(DELIVERY_TOPIC);
    await expect(sut.handle(asWork(again))).rejects.toBeInstanceOf(OutboundClosedError);
    expect(onlyDelivery()).toMatchObject({ status: 'pending', attempts: [] });
    expect([...h.webhooks.rows.values()][0].consecutiveFailures).toBe(0);
  });

  it('posts the stored body with the contract headers, signed with the webhook secret', async () => {
    const { secret } = await createWebhook();
    const eventId = await publish();

    expect(await drain()).toEqual([{ kind: 'done' }]);

    const [request] = h.http.requests;
    const body = h.events.find(acme, eventId)!.bodies.v3!;
    const t = Math.floor(h.clock.nowMs() / 1000);
    expect(request.url).toBe('https://hooks.example.com/in');
    expect(request.body).toBe(body);
    expect(request.timeoutMs).toBe(h.settings.timeoutMs);
    expect(request.headers).toEqual({
      'content-type': 'application/json',
      'x-service-signature': expect.stringMatching(new RegExp(`^t=${t},v1=[0-9a-f]{64}$`)),
      'x-service-event-id': eventId,
      'x-service-event-type': 'email.delivered',
      'webhook-id': eventId,
      'webhook-timestamp': String(t),
      'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/),
    });
    expect(isValid(body, request.headers['x-service-signature'], secret, { now: t })).toBe(true);
    expect(isValidStandardWebhook(body, request.headers, secret, { now: t })).toBe(true);
    expect(onlyDelivery()).toMatchObject({
      status: 'succeeded',
      nextAttemptAt: null,
      attempts: [
        { at: h.clock.now(), durationMs: 3, httpStatus: 200, error: null, responseBody: '', requestHeaders: h.http.sentHeaders(request) },
      ],
    });
    expect(request.headers['x-service-test']).toBeUndefined();
  });

  it('retries on the schedule with the same body, then fails', async () => {
    await setUp({ disableAfter: 10 });
    await createWebhook();
    await publish();
    h.http.respond = () => ({ status: 500, body: 'oops' });
    const start = h.clock.nowMs();

    await drain();

    const delivery = onlyDelivery();
    expect(delivery.status).toBe('failed');
    expect(delivery.attempts.map((a) => a.at.getTime() - start)).toEqual([0, 10_000, 70_000]);
    expect(delivery.attempts.map((a) => a.httpStatus)).toEqual([500, 500, 500]);
    expect(delivery.attempts[0].responseBody).toBe('oops');
    expect(new Set(h.http.requests.map((r) => r.body)).size).toBe(1);
    expect(new Set(h.http.requests.map((r) => r.headers['X-Service-Event-Id'])).size).toBe(1);
  });

  it.each([
    [{ status: 301 }, 301, null],
    [{ status: 404 }, 404, null],
    [{ status: null, error: 'timeout' as const }, null, 'timeout'],
    [{ status: null, error: 'connection_refused' as const }, null, 'connection_refused'],
    [{ status: null, error: 'blocked_address' as const }, null, 'blocked_address'],
  ])('counts %j as a failed attempt', async (answer, httpStatus, error) => {
    await createWebhook();
    await publish();
    h.http.respond = () => answer;
    await sut.handle(asWork(h.queue.take(DELIVERY_TOPIC)[0]));
    expect(onlyDelivery()).toMatchObject({ status: 'retrying', attempts: [expect.objectContaining({ httpStatus, error })] });
  });

  it('tells the observer of each attempt: outcome, status class or error kind, and duration', async () => {
    await setUp({ disableAfter: 10 });
    await createWebhook();
    await publish();
    const answers = [{ status: 503 }, { status: null, error: 'timeout' as const, durationMs: 10_000 }, { status: 204 }];
    h.http.respond = () => answers.shift()!;

    await drain();

    expect(h.observer.attempts).toEqual([
      expect.objectContaining({ outcome: { result: 'failed', reason: '5xx' }, durationMs: 3, attemptNo: 1, httpStatus: 503, firstAttemptLatencyMs: 0, status: 'retrying' }),
      expect.objectContaining({ outcome: { result: 'failed', reason: 'timeout' }, durationMs: 10_000, attemptNo: 2, error: 'timeout', firstAttemptLatencyMs: null }),
      expect.objectContaining({ outcome: { result: 'succeeded', reason: '2xx' }, durationMs: 3, attemptNo: 3, status: 'succeeded' }),
    ]);
    expect(h.observer.attempts[0]).toMatchObject({ accountId: acme, eventType: 'email.delivered' });
  });

  it('disables the webhook at exactly disableAfter consecutive failures, a success in between resetting the count', async () => {
    const { webhook } = await createWebhook();
    const attemptOnce = async (status: number) => {
      h.http.respond = () => ({ status });
      await publish();
      await sut.handle(asWork(h.queue.items.find((i) => i.payload.seq === 0)!));
      h.queue.take(DELIVERY_TOPIC);
    };
    await attemptOnce(500);
    await attemptOnce(500);
    expect(h.webhooks.rows.get(webhook.id)!.consecutiveFailures).toBe(2);
    await attemptOnce(200);
    expect(h.webhooks.rows.get(webhook.id)!.consecutiveFailures).toBe(0);
    await attemptOnce(500);
    await attemptOnce(500);
    expect(h.webhooks.rows.get(webhook.id)!.state).toBe('enabled');
    await attemptOnce(500);

    expect(h.webhooks.rows.get(webhook.id)).toMatchObject({ state: 'disabled', consecutiveFailures: 3, disabledAt: h.clock.now() });
    const statuses = [...h.deliveries.rows.values()].map((d) => d.status);
    expect(statuses.filter((s) => s === 'skipped')).toHaveLength(5); // the failing ones, waiting for a retry
    expect(statuses.filter((s) => s === 'succeeded')).toHaveLength(1);

    await publish();
    expect([...h.deliveries.rows.values()].pop()!.status).toBe('skipped');
  });

  it('drops outdated and final items, and waits for an early one', async () => {
    await createWebhook();
    await publish();
    const [item] = h.queue.take(DELIVERY_TOPIC);
    const delivery = onlyDelivery();

    expect(await sut.handle(asWork({ ...item, payload: { deliveryId: delivery.id, seq: 7 } }))).toEqual({ kind: 'done' });
    expect(await sut.handle(asWork({ ...item, payload: { deliveryId: 'del_gone', seq: 0 } }))).toMatchObject({ kind: 'drop' });
    expect(await sut.handle(asWork({ ...item, payload: { nothing: true } }))).toMatchObject({ kind: 'drop' });

    delivery.nextAttemptAt = new Date(h.clock.nowMs() + 5000);
    expect(await sut.handle(asWork(item))).toEqual({ kind: 'retry', at: delivery.nextAttemptAt });
    expect(h.http.requests).toHaveLength(0);

    h.clock.advance(5000);
    await sut.handle(asWork(item));
    expect(await sut.handle(asWork(item, 2))).toEqual({ kind: 'done' });
    expect(h.http.requests).toHaveLength(1);
  });

  it('never attempts a delivery another dispatcher holds, and looks again once its lease would have run out', async () => {
    await createWebhook();
    await publish();
    const [item] = h.queue.take(DELIVERY_TOPIC);
    let release!: () => void;
    h.http.respond = () => ({ status: 200 });
    const slow = new Promise<void>((resolve) => (release = resolve));
    const post = h.http.post.bind(h.http);
    h.http.post = async (request) => {
      await slow;
      return post(request);
    };

    const first = sut.handle(asWork(item));
    await new Promise((r) => setImmediate(r));
    const second = await sut.handle(asWork(item, 2));

    expect(second).toEqual({ kind: 'retry', at: new Date(h.clock.nowMs() + h.settings.timeoutMs + 30_000 + 1000) });
    release();
    expect(await first).toEqual({ kind: 'done' });
    expect(h.http.requests).toHaveLength(1);
    expect(await sut.handle(asWork(item, 3))).toEqual({ kind: 'done' });
  });

  it('waits for a free slot of the origin, then uses the webhook as it is by then', async () => {
    const { webhook, release, running, waiting } = await secondWaitingBehindFirst();
    expect(h.http.requests).toHaveLength(0);
    h.clock.advance(5); // a change moves the webhook's version (its updatedAt)
    await h.service.update(acme, webhook.id, { url: 'https://moved.example.com/in' });
    release();
    await Promise.all([running, waiting]);

    expect(h.http.requests.map((r) => r.url)).toEqual(['https://hooks.example.com/in', 'https://moved.example.com/in']);
  });

  it('honours a Retry-After pause another dispatcher recorded while the delivery waited in its lane: no call before it ends', async () => {
    const { webhook, second, release, running, waiting } = await secondWaitingBehindFirst();
    // meanwhile another process's call got a 429 with Retry-After: 30
    const until = new Date(h.clock.nowMs() + 30_000);
    await h.webhooks.pauseUntil([{ webhookId: webhook.id, until }]);
    release();
    await running;
    await expect(waiting).resolves.toEqual({ kind: 'retry', at: until });
    expect(h.http.requests).toHaveLength(1);
    const secondId = (second.payload as { deliveryId: string }).deliveryId;
    expect(h.deliveries.rows.get(secondId)).toMatchObject({ claimToken: null, nextAttemptAt: until, attemptCount: 0 });
    // once it ends, the item that comes back makes the call
    h.clock.set(until);
    await expect(sut.handle(asWork(second))).resolves.toEqual({ kind: 'done' });
    expect(h.http.requests).toHaveLength(2);
  });

  it("frees the origin's place once the call has answered, while its outcome is still being recorded", async () => {
    await setUp({ originConcurrency: 1 });
    await createWebhook();
    await publish();
    await publish();
    const [first, second] = h.queue.take(DELIVERY_TOPIC);
    const record = holdFirstRecord();

    const recording = sut.handle(asWork(first));
    await turns(() => record.held());
    const next = sut.handle(asWork(second));
    await turns(() => h.http.requests.length === 2);
    expect(h.http.requests).toHaveLength(2);
    expect([...h.deliveries.rows.values()].map((d) => d.attempts.length)).toEqual([0, 0]);

    record.release();
    expect(await Promise.all([recording, next])).toEqual([{ kind: 'done' }, { kind: 'done' }]);
    expect([...h.deliveries.rows.values()].map((d) => d.status)).toEqual(['succeeded', 'succeeded']);
  });

  it('keeps at most a quarter of concurrency calls answered but unrecorded, the next one holding its lane meanwhile', async () => {
    await setUp({ originConcurrency: 1, concurrency: 4 });
    await createWebhook();
    for (let i = 0; i < 3; i++) await publish();
    const items = h.queue.take(DELIVERY_TOPIC);
    const record = holdFirstRecord();

    const handled = items.map((item) => sut.handle(asWork(item)));
    await turns(() => false);
    // the first waits for its record, the second for room among the unrecorded, the third for the lane
    expect(h.http.requests).toHaveLength(2);

    record.release();
    expect(await Promise.all(handled)).toEqual([{ kind: 'done' }, { kind: 'done' }, { kind: 'done' }]);
    expect(h.http.requests).toHaveLength(3);
    expect([...h.deliveries.rows.values()].map((d) => d.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
  });

  it('skips the delivery of a webhook disabled meanwhile, and cancels that of a deleted one', async () => {
    const { webhook } = await createWebhook();
    const { webhook: doomed } = await createWebhook();
    await publish();
    h.webhooks.rows.get(webhook.id)!.state = 'disabled';
    h.webhooks.rows.delete(doomed.id);

    await drain();

    const status = (id: string) => [...h.deliveries.rows.values()].find((d) => d.webhookId === id)!.status;
    expect([status(webhook.id), status(doomed.id)]).toEqual(['skipped', 'cancelled']);
    expect(h.http.requests).toHaveLength(0);
  });

  describe('a first attempt whose webhook is already in memory', () => {
    /** Delivers one event, so that the webhook is cached, and counts the dispatch reads after it. */
    const warmedUp = async () => {
      const created = await createWebhook();
      await publish();
      await drain();
      const reads: string[][] = [];
      const findForDispatch = h.deliveries.findForDispatch.bind(h.deliveries);
      h.deliveries.findForDispatch = (ids) => (reads.push(ids), findForDispatch(ids));
      return { ...created, reads };
    };

    it('is claimed as its item arrives, with no read first; an item without its lane (an earlier release) is read first', async () => {
      const { reads } = await warmedUp();
      await publish();
      const [item] = h.queue.take(DELIVERY_TOPIC);
      expect(item.payload).toMatchObject({ firstAttempt: { webhookId: expect.any(String), accountId: acme } });
      expect(await sut.handle(asWork(item))).toEqual({ kind: 'done' });
      expect(reads).toEqual([]);
      expect(h.http.requests).toHaveLength(2);

      await publish();
      const [next] = h.queue.take(DELIVERY_TOPIC);
      const { deliveryId, seq } = next.payload as { deliveryId: string; seq: number };
      expect(await sut.handle(asWork({ ...next, payload: { deliveryId, seq } }))).toEqual({ kind: 'done' });
      expect(reads).toEqual([[deliveryId]]);
      expect([...h.deliveries.rows.values()].map((d) => d.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    });

    it('gives its claim back and settles it, with no call, when the webhook was disabled or deleted since', async () => {
      const { webhook } = await warmedUp();
      await publish();
      await publish();
      const [first, second] = h.queue.take(DELIVERY_TOPIC);
      // as another process would leave it: disabled, its version moved, the deliveries still waiting
      const row = h.webhooks.rows.get(webhook.id)!;
      Object.assign(row, { state: 'disabled', updatedAt: new Date(row.updatedAt.getTime() + 5) });
      expect(await sut.handle(asWork(first))).toEqual({ kind: 'done' });
      const idOf = (item: WorkItem) => (item.payload as { deliveryId: string }).deliveryId;
      expect(h.deliveries.rows.get(idOf(first))).toMatchObject({ status: 'skipped', claimToken: null });

      h.webhooks.rows.delete(webhook.id);
      expect(await sut.handle(asWork(second))).toEqual({ kind: 'done' });
      expect(h.deliveries.rows.get(idOf(second))).toMatchObject({ status: 'cancelled', claimToken: null });
      expect(h.http.requests).toHaveLength(1);
    });

    it('comes back when due, with no call, when the delivery was postponed after its item was queued', async () => {
      await warmedUp();
      await publish();
      const [item] = h.queue.take(DELIVERY_TOPIC);
      const delivery = [...h.deliveries.rows.values()].pop()!;
      delivery.nextAttemptAt = new Date(h.clock.nowMs() + 5000);
      expect(await sut.handle(asWork(item))).toEqual({ kind: 'retry', at: delivery.nextAttemptAt });
      expect(h.http.requests).toHaveLength(1);
      h.clock.advance(5000);
      expect(await sut.handle(asWork(item))).toEqual({ kind: 'done' });
      expect(h.http.requests).toHaveLength(2);
    });
  });

  it('signs with both secrets, newest first, during the rotation grace period only', async () => {
    const { webhook, secret: old } = await createWebhook();
    const { secret: fresh } = await h.service.rotateSecret(acme, webhook.id);
    await publish();
    await drain();
    h.clock.advance(h.settings.rotationGraceMs);
    await publish();
    await drain();

    const [during, after] = h.http.requests;
    const t = (r: typeof during) => Number(r.headers['webhook-timestamp']);
    const header = parseSignatureHeader(during.headers['x-service-signature']);
    expect(header.signatures).toHaveLength(2);
    expect(isValid(during.body as string, during.headers['x-service-signature'], fresh, { now: t(during) })).toBe(true);
    expect(isValid(during.body as string, during.headers['x-service-signature'], old, { now: t(during) })).toBe(true);
    expect(during.headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(isValidStandardWebhook(during.body as string, during.headers, old, { now: t(during) })).toBe(true);
    expect(parseSignatureHeader(after.headers['x-service-signature']).signatures).toHaveLength(1);
    expect(isValid(after.body as string, after.headers['x-service-signature'], old, { now: t(after) })).toBe(false);
  });

  it('makes a single extra attempt on a manual retry of a failed delivery', async () => {
    await setUp({ retryScheduleMs: [1000], disableAfter: 10 });
    const { webhook } = await createWebhook();
    await publish();
    h.http.respond = () => ({ status: 503 });
    await drain();
    expect(onlyDelivery()).toMatchObject({ status: 'failed', attempts: [{}, {}] });

    await h.service.retryDelivery(acme, webhook.id, onlyDelivery().id);
    await drain();
    expect(onlyDelivery()).toMatchObject({ status: 'failed', attempts: [{}, {}, {}] });

    h.http.respond = () => ({ status: 204 });
    await h.service.retryDelivery(acme, webhook.id, onlyDelivery().id);
    await drain();
    expect(onlyDelivery()).toMatchObject({ status: 'succeeded' });
    expect(onlyDelivery().attempts).toHaveLength(4);
  });

  it('delivers recovered deliveries again once the webhook is enabled', async () => {
    const { webhook } = await createWebhook();
    h.http.respond = () => ({ status: 500 });
    for (let i = 0; i < 3; i++) await publish();
    await drain();
    expect(h.webhooks.rows.get(webhook.id)!.state).toBe('disabled');

    await h.service.enable(acme, webhook.id);
    h.http.respond = () => ({ status: 200 });
    const { count } = await h.service.recover(acme, webhook.id, new Date(0).toISOString());
    await drain();

    expect(count).toBe(3);
    expect([...h.deliveries.rows.values()].map((d) => d.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
  });
});
