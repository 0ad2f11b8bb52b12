import { eventually } from '../support/eventually';
import { deliveredData as delivered, profileSuite, TestAccount } from '../support/profile-suite';
import { startReceiver } from '../support/receiver';
import { PROFILES } from '../support/test-app';

/** The event feed (CONTRACT §9.2) and webhooks' disabledReason (§9.3), on each profile. */
const ENV = { DELIVERY_RETRY_SCHEDULE: '50ms', DELIVERY_TIMEOUT_MS: '1000', WEBHOOK_DISABLE_AFTER: '3' };
const WAIT_MS = 15_000;
const T0 = 1_732_238_400; // 2024-11-22T01:20:00Z

const bounced = (idSending: number) => ({ email: 'jane@example.com', idSending, sendingType: 3, diagCode: null, bounceType: 'hard', bouncedAt: '2025-11-22T02:00:00.000Z' });

describe.each(PROFILES)('event feed and disabledReason (%s)', (profile) => {
  const suite = profileSuite(profile, { env: ENV });
  const { get, post, internal } = suite;

  const publish = async (accountId: number, type: string, data: object, extra: object = {}): Promise<string> =>
    (await internal('/internal/events', { accountId, type, data, ...extra }).expect(202)).body.id;
  const feedIds = async (account: TestAccount, query: string, family = 'v3') => {
    const { body } = await get(account, `/${family}/events?${query}`).expect(200);
    return { ids: body.events.map((e: { id: string }) => e.id) as string[], next: (family === 'v2' ? body.next_cursor : body.nextCursor) as string | null };
  };
  const expectError = async (response: PromiseLike<{ status: number; body: { code: string; message: string } }>, status: number, code: string) => {
    const { status: actual, body } = await response;
    expect([actual, body.code, typeof body.message]).toEqual([status, code, 'string']);
  };

  /** Each event of the list is published with its own `created`, so the order is known. */
  async function publishSeries(account: TestAccount, series: Array<[type: string, created: number]>): Promise<string[]> {
    const ids: string[] = [];
    for (const [index, [type, created]] of series.entries()) {
      ids.push(await publish(account.id, type, type === 'email.bounced' ? bounced(index + 1) : delivered(index + 1), { created }));
    }
    return ids;
  }

  it('serves every event newest first, filtered by type and since, paged by a cursor that new events never shift', async () => {
    if (suite.skip) return;
    const account = await suite.sut.createAccount('Feed');
    await post(account, '/v3/Webhook', { url: `${suite.receiver.url}/feed`, events: ['email.delivered', 'email.bounced'] }).expect(201);
    const [d0, b1, d2, b3, d4] = await publishSeries(account, [
      ['email.delivered', T0],
      ['email.bounced', T0 + 60],
      ['email.delivered', T0 + 120],
      ['email.bounced', T0 + 180],
      ['email.delivered', T0 + 240],
    ]);
    const stranger = await suite.sut.createAccount('Stranger');
    await post(stranger, '/v3/Webhook', { url: `${suite.receiver.url}/stranger`, events: ['email.delivered'] }).expect(201);
    await publish(stranger.id, 'email.delivered', delivered(99), { created: T0 + 500 });

    expect((await feedIds(account, '')).ids).toEqual([d4, b3, d2, b1, d0]);
    expect((await feedIds(account, 'type=email.bounced')).ids).toEqual([b3, b1]);
    expect((await feedIds(account, 'type=email.bounced,email.delivered&limit=3')).ids).toEqual([d4, b3, d2]);
    expect((await feedIds(account, 'since=2024-11-22T01:22:00Z')).ids).toEqual([d4, b3, d2]);
    expect((await feedIds(account, 'since=2024-11-22T02:22:00%2B01:00&type=email.delivered')).ids).toEqual([d4, d2]);
    // an unencoded + arrives as a space, read as the + it was; a repeated type is the comma list; a date alone is its midnight UTC
    expect((await feedIds(account, 'since=2024-11-22T02:22:00+01:00&type=email.delivered')).ids).toEqual([d4, d2]);
    expect((await feedIds(account, 'type=email.bounced&type=email.delivered&limit=3')).ids).toEqual([d4, b3, d2]);
    expect((await feedIds(account, 'since=2024-11-22')).ids).toEqual([d4, b3, d2, b1, d0]);
    expect((await feedIds(account, 'since=2024-11-23')).ids).toEqual([]);

    const first = await feedIds(account, 'limit=2');
    expect(first.ids).toEqual([d4, b3]);
    // Arrivals while paging: one newer than everything, one between the pages already seen.
    await publishSeries(account, [
      ['email.delivered', T0 + 1000],
      ['email.bounced', T0 + 200],
    ]);
    const second = await feedIds(account, `limit=2&cursor=${encodeURIComponent(first.next!)}`);
    expect(second.ids).toEqual([d2, b1]);
    const third = await feedIds(account, `limit=2&cursor=${encodeURIComponent(second.next!)}`);
    expect(third).toEqual({ ids: [d0], next: null });

    const v2 = await feedIds(account, 'limit=4&type=email.delivered', 'v2');
    expect(v2.ids).toHaveLength(4);
    expect(v2.next).toBeNull();
    const v2Page = (await get(account, '/v2/events?limit=1').expect(200)).body;
    expect(Object.keys(v2Page)).toEqual(['events', 'next_cursor']);
    expect(v2Page.events[0]).toMatchObject({ apiVersion: 'v2', account: { id: account.id, name: 'Feed' } });
  });

  it('returns each envelope exactly as the deliveries of its family carry it, never snake_cased', async () => {
    if (suite.skip) return;
    const account = await suite.sut.createAccount('Envelopes');
    await post(account, '/v3/Webhook', { url: `${suite.receiver.url}/env-v3`, events: ['email.delivered'] }).expect(201);
    await post(account, '/v2/webhooks', { url: `${suite.receiver.url}/env-v2`, events: ['email.delivered'] }).expect(201);
    const id = await publish(account.id, 'email.delivered', delivered(7), { id: 'evt_feed_envelope_1', created: T0 });
    const received = await eventually(() => {
      const v3 = suite.receiver.requestsTo('/env-v3').find((r) => r.body.includes(id));
      const v2 = suite.receiver.requestsTo('/env-v2').find((r) => r.body.includes(id));
      if (!v3 || !v2) throw new Error('not delivered yet');
      return { v3: v3.body, v2: v2.body };
    }, WAIT_MS);

    for (const family of ['v3', 'v2'] as const) {
      const one = await get(account, `/${family}/events/${id}`).expect(200);
      expect(one.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.stringify(one.body)).toBe(received[family]);
      expect(one.body.data).toHaveProperty('idSending', 7);
      const listed = (await get(account, `/${family}/events`).expect(200)).body.events[0];
      expect(JSON.stringify(listed)).toBe(received[family]);
    }
  });

  it('keeps /events/types, answers 404 for unknown and foreign ids and 400 for bad parameters', async () => {
    if (suite.skip) return;
    const account = await suite.sut.createAccount('Errors');
    const stranger = await suite.sut.createAccount('Stranger');
    await post(stranger, '/v3/Webhook', { url: `${suite.receiver.url}/foreign`, events: ['email.delivered'] }).expect(201);
    const foreign = await publish(stranger.id, 'email.delivered', delivered(1));
    await get(stranger, `/v3/events/${foreign}`).expect(200);

    for (const family of ['v3', 'v2']) {
      expect((await get(account, `/${family}/events/types`).expect(200)).body.types.length).toBeGreaterThanOrEqual(30);
      for (const id of [foreign, 'evt_unknown', 'evt_x%2F..', 'nope']) await expectError(get(account, `/${family}/events/${id}`), 404, 'not_found');
      for (const query of ['type=email.nope', 'type=email.delivered,nope', 'type=', 'since=yesterday', 'since=2025-11-22T10:00:00', 'since=2025-02-30', 'limit=0', 'limit=101', 'limit=ten', 'cursor=garbage', 'constructor=1', '__proto__=1', 'toString=x']) {
        await expectError(get(account, `/${family}/events?${query}`), 400, 'invalid_parameter');
      }
      await expectError(suite.sut.http().get(`/${family}/events`), 401, 'unauthorized');
      // a list without parameters refuses a guessed filter rather than answer everything
      await expectError(get(account, family === 'v3' ? '/v3/Webhook?state=disabled' : '/v2/webhooks?state=disabled'), 400, 'invalid_parameter');
    }

    const docs = (await suite.sut.http().get('/docs/json').expect(200)).body;
    expect(Object.keys(docs.paths)).toEqual(expect.arrayContaining(['/v3/events', '/v3/events/{id}', '/v2/events', '/v2/events/{id}', '/v3/events/types']));
    const okSchema = (path: string) => docs.paths[path].get.responses['200'].content['application/json'].schema;
    expect(okSchema('/v2/events')).toEqual({ $ref: '#/components/schemas/EventFeedPageV2View' });
    expect(Object.keys(docs.components.schemas.EventFeedPageV2View.properties)).toEqual(['events', 'next_cursor']);
    // the envelope is never snake_cased: both pages list the one EnvelopeView
    expect(docs.components.schemas.EventFeedPageV2View.properties.events.items).toEqual({ $ref: '#/components/schemas/EnvelopeView' });
    expect(okSchema('/v2/events/{id}')).toEqual({ $ref: '#/components/schemas/EnvelopeView' });
    expect(okSchema('/v3/Webhook/{id}')).toEqual({ $ref: '#/components/schemas/WebhookV3View' });
    expect(docs.components.schemas.WebhookV3View.properties).toHaveProperty('disabledReason');
    expect(docs.components.schemas.WebhookV2View.properties).toHaveProperty('disabled_reason');
  });

  it('lists an event no webhook subscribes to', async () => {
    if (suite.skip) return;
    const account = await suite.sut.createAccount('Unsubscribed');
    const id = await publish(account.id, 'email.delivered', delivered(3));
    expect((await feedIds(account, '')).ids).toEqual([id]);
    expect((await get(account, `/v3/events/${id}`).expect(200)).body).toMatchObject({ id, apiVersion: 'v3' });
    for (const family of ['v3', 'v2']) expect((await get(account, `/${family}/events/${id}/deliveries`).expect(200)).body).toEqual({ deliveries: [] });
  });

  it("shows where an event went: its delivery on each webhook, with attempts, in each family's casing", async () => {
    if (suite.skip) return;
    const account = await suite.sut.createAccount('Where');
    const ok = (await post(account, '/v3/Webhook', { url: `${suite.receiver.url}/where-ok`, events: ['email.delivered'] }).expect(201)).body.id;
    await post(account, '/v3/Webhook', { url: `${suite.receiver.url}/where-other`, events: ['email.bounced'] }).expect(201);
    // older traffic on the same webhook: the lookup goes by the event, not by paging its log
    for (let i = 0; i < 3; i++) await publish(account.id, 'email.delivered', delivered(100 + i));
    const failingReceiver = await startReceiver({ status: 500, body: 'nope' });
    try {
      const failing = (await post(account, '/v2/webhooks', { url: `${failingReceiver.url}/where-failing`, events: ['email.delivered'] }).expect(201)).body.id;
      const id = await publish(account.id, 'email.delivered', delivered(8));

      const v3 = await eventually(async () => {
        const { body } = await get(account, `/v3/events/${id}/deliveries`).expect(200);
        expect(body.deliveries.map((d: { status: string }) => d.status)).toEqual(['succeeded', 'failed']);
        return body;
      }, WAIT_MS);
      expect(v3.deliveries.map((d: { webhookId: string }) => d.webhookId)).toEqual([ok, failing]);
      expect(v3.deliveries[0]).toMatchObject({ eventId: id, eventType: 'email.delivered', attempts: [{ httpStatus: 200, error: null }] });
      expect(v3.deliveries[1].attempts).toEqual([expect.objectContaining({ httpStatus: 500, responseBody: 'nope' }), expect.objectContaining({ httpStatus: 500 })]);
      // the same delivery as the webhook's own log shows it
      const logged = (await get(account, `/v3/Webhook/${ok}/deliveries`).expect(200)).body.deliveries.find((d: { eventId: string }) => d.eventId === id);
      expect({ ...v3.deliveries[0], webhookId: undefined }).toEqual({ ...logged, webhookId: undefined });

      const v2 = (await get(account, `/v2/events/${id}/deliveries`).expect(200)).body;
      expect(Object.keys(v2.deliveries[0])).toEqual(['webhook_id', 'id', 'event_id', 'event_type', 'status', 'attempts', 'next_attempt_at', 'created_at']);
      expect(v2.deliveries.map((d: { webhook_id: string }) => d.webhook_id)).toEqual([ok, failing]);

      const stranger = await suite.sut.createAccount('Stranger');
      for (const family of ['v3', 'v2']) {
        for (const other of [id, 'evt_unknown', 'nope']) await expectError(get(stranger, `/${family}/events/${other}/deliveries`), 404, 'not_found');
      }
    } finally {
      await failingReceiver.close();
    }
  });

  it('shows why a webhook is disabled: manual by the route, consecutive_failures by the counter, null once enabled', async () => {
    if (suite.skip) return;
    const account = await suite.sut.createAccount('Reasons');
    const created = (await post(account, '/v3/Webhook', { url: `${suite.receiver.url}/manual`, events: ['email.delivered'] }).expect(201)).body;
    expect(created).toMatchObject({ state: 'enabled', disabledReason: null });

    expect((await post(account, `/v3/Webhook/${created.id}/disable`).expect(200)).body).toMatchObject({ state: 'disabled', disabledReason: 'manual' });
    expect((await get(account, `/v2/webhooks/${created.id}`).expect(200)).body).toMatchObject({ state: 'disabled', disabled_reason: 'manual' });
    expect((await post(account, `/v2/webhooks/${created.id}/enable`).expect(200)).body).toMatchObject({ state: 'enabled', disabled_reason: null });

    const failing = await startReceiver({ status: 500 });
    try {
      const { id } = (await post(account, '/v3/Webhook', { url: `${failing.url}/down`, events: ['email.bounced'] }).expect(201)).body;
      // One event: two attempts (first try and one retry) per delivery; the third failure disables.
      await publish(account.id, 'email.bounced', bounced(1));
      await publish(account.id, 'email.bounced', bounced(2));
      const disabled = await eventually(async () => {
        const { body } = await get(account, `/v3/Webhook/${id}`).expect(200);
        expect(body).toMatchObject({ state: 'disabled', disabledReason: 'consecutive_failures' });
        return body;
      }, WAIT_MS);
      expect(disabled.consecutiveFailures).toBeGreaterThanOrEqual(3);
      expect((await get(account, '/v2/webhooks').expect(200)).body.webhooks.find((w: { id: string }) => w.id === id)).toMatchObject({ disabled_reason: 'consecutive_failures' });
      // Disabling an already disabled webhook keeps the first reason.
      expect((await post(account, `/v3/Webhook/${id}/disable`).expect(200)).body).toMatchObject({ disabledReason: 'consecutive_failures' });
      expect((await post(account, `/v3/Webhook/${id}/enable`).expect(200)).body).toMatchObject({ state: 'enabled', disabledReason: null, consecutiveFailures: 0 });
    } finally {
      await failing.close();
    }
  });
});
