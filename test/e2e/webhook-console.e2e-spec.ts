import { eventually } from '../support/eventually';
import { deliveredData as delivered, profileSuite, TestAccount } from '../support/profile-suite';
import { ReceivedRequest } from '../support/receiver';
import { PROFILES } from '../support/test-app';

/** Operational events (CONTRACT §9.1) and webhook stats (§9.3), over HTTP, on each profile. */
const ENV = { DELIVERY_RETRY_SCHEDULE: '50ms,50ms,50ms', DELIVERY_TIMEOUT_MS: '1000', WEBHOOK_DISABLE_AFTER: '4' };
const WAIT_MS = 15_000;
const HOUR_MS = 3_600_000;

describe.each(PROFILES)('operational events and webhook stats (%s)', (profile) => {
  const suite = profileSuite(profile, { env: ENV, responder: (request: ReceivedRequest) => (request.path.startsWith('/fail') ? { status: 500 } : { status: 200 }) });
  const { get, post, internal } = suite;
  /** The stats count each delivery of the webhook once, under the status its list shows. */
  const statsAgreeWithList = async (account: TestAccount, webhookId: string) => {
    const listed = (await get(account, `/v3/Webhook/${webhookId}/deliveries?limit=100`).expect(200)).body.deliveries as Array<{ status: string }>;
    const byStatus: Record<string, number> = { pending: 0, retrying: 0, succeeded: 0, failed: 0, skipped: 0, cancelled: 0 };
    for (const d of listed) byStatus[d.status]++;
    expect((await get(account, `/v3/Webhook/${webhookId}/stats`).expect(200)).body.deliveries).toEqual(byStatus);
  };
  const notices = (path: string) => suite.receiver.requestsTo(path).map((r) => ({ headers: r.headers, body: JSON.parse(r.body) as { id: string; type: string; data: Record<string, unknown> } }));

  it('tells the other subscribed webhooks when a webhook starts failing and when it is disabled, never the webhook itself', async () => {
    if (suite.skip) return;
    const account = await suite.sut.createAccount('Ops');
    const failing = (await post(account, '/v3/Webhook', { url: `${suite.receiver.url}/fail/ops`, events: ['email.delivered', 'webhook.failing', 'webhook.disabled'] }).expect(201)).body;
    await post(account, '/v3/Webhook', { url: `${suite.receiver.url}/watch/ops`, events: ['webhook.failing', 'webhook.disabled'] }).expect(201);
    await post(account, '/v2/webhooks', { url: `${suite.receiver.url}/watch-v2/ops`, events: ['webhook.disabled'] }).expect(201);

    for (let i = 1; i <= 4; i++) await internal('/internal/events', { accountId: account.id, type: 'email.delivered', data: delivered(i) }).expect(202);

    const received = await eventually(() => {
      const got = notices('/watch/ops');
      expect(got.map((n) => n.body.type).sort()).toEqual(['webhook.disabled', 'webhook.failing']);
      return got;
    }, WAIT_MS);
    const byType = Object.fromEntries(received.map((n) => [n.body.type, n]));
    expect(byType['webhook.failing'].body.data).toEqual({
      webhookId: failing.id,
      url: `${suite.receiver.url}/fail/ops`,
      consecutiveFailures: expect.any(Number),
      lastAttempt: { at: expect.stringMatching(/^\d{4}-.*Z$/), httpStatus: 500, error: null },
    });
    // failures count one by one, however many finish together: the event tells of the one that reached half
    expect(byType['webhook.failing'].body.data.consecutiveFailures).toBe(2);
    expect(byType['webhook.disabled'].body.data).toEqual({
      webhookId: failing.id,
      url: `${suite.receiver.url}/fail/ops`,
      reason: 'consecutive_failures',
      consecutiveFailures: expect.any(Number),
      disabledAt: expect.stringMatching(/^\d{4}-.*Z$/),
    });
    // and the counter stops at the threshold: failures recorded after it came after the disable
    expect(byType['webhook.disabled'].body.data.consecutiveFailures).toBe(4);
    expect((await get(account, `/v3/Webhook/${failing.id}`).expect(200)).body.consecutiveFailures).toBe(4);
    // the attempt that disabled it settled its own delivery with the rest: counted once, as skipped
    await eventually(() => statsAgreeWithList(account, failing.id), WAIT_MS);
    expect(byType['webhook.disabled'].headers['x-service-event-type']).toBe('webhook.disabled');
    expect(byType['webhook.disabled'].headers['x-service-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    // the v2 webhook gets the same event in its family's envelope, data untouched
    const v2 = await eventually(() => {
      const bodies = notices('/watch-v2/ops').map((n) => n.body);
      expect(bodies).toHaveLength(1);
      return bodies[0];
    }, WAIT_MS);
    expect(v2).toMatchObject({ type: 'webhook.disabled', apiVersion: 'v2', data: { webhookId: failing.id, reason: 'consecutive_failures' } });

    // the webhook they are about: no request and no delivery record of them
    expect(suite.receiver.requestsTo('/fail/ops').map((r) => JSON.parse(r.body).type).filter((t: string) => t.startsWith('webhook.'))).toEqual([]);
    const deliveries = (await get(account, `/v3/Webhook/${failing.id}/deliveries?limit=100`).expect(200)).body.deliveries as Array<{ eventType: string }>;
    expect(deliveries.filter((d) => d.eventType.startsWith('webhook.'))).toEqual([]);
    // the feed has them like any event
    const feed = (await get(account, '/v3/events?type=webhook.failing,webhook.disabled').expect(200)).body.events as Array<{ id: string }>;
    expect(feed.map((e) => e.id).sort()).toEqual(received.map((n) => n.body.id).sort());

    // a run of failures ends with enable; disabling by hand is told with the reason manual
    await post(account, `/v3/Webhook/${failing.id}/enable`).expect(200);
    await post(account, `/v3/Webhook/${failing.id}/disable`).expect(200);
    const manual = await eventually(() => {
      const got = notices('/watch/ops').filter((n) => n.body.data.reason === 'manual');
      expect(got).toHaveLength(1);
      return got[0].body.data;
    }, WAIT_MS);
    expect(manual).toEqual({ webhookId: failing.id, url: `${suite.receiver.url}/fail/ops`, reason: 'manual', consecutiveFailures: 0, disabledAt: expect.any(String) });

    // recover brings its skipped deliveries back; they fail again and disable it again: each still counted once
    await post(account, `/v3/Webhook/${failing.id}/enable`).expect(200);
    expect((await post(account, `/v3/Webhook/${failing.id}/recover`, { since: new Date(Date.now() - HOUR_MS).toISOString() }).expect(202)).body.count).toBeGreaterThan(0);
    await eventually(async () => expect((await get(account, `/v3/Webhook/${failing.id}`).expect(200)).body.disabledReason).toBe('consecutive_failures'), WAIT_MS);
    await eventually(() => statsAgreeWithList(account, failing.id), WAIT_MS);
  });

  it('refuses producers that publish an operational type, keeping nothing of their batch', async () => {
    if (suite.skip) return;
    const account = await suite.sut.createAccount('Producer');
    const notice = { accountId: account.id, type: 'webhook.failing', data: { webhookId: 'wh_1', url: 'https://x', consecutiveFailures: 5, lastAttempt: { at: '2025-11-22T02:00:00.000Z', httpStatus: 500, error: null } } };
    const single = await internal('/internal/events', notice).expect(400);
    expect(single.body).toMatchObject({ code: 'invalid_parameter', message: expect.stringContaining('webhook.failing') });
    const batch = await internal('/internal/events/batch', { events: [{ accountId: account.id, type: 'email.delivered', data: delivered(1) }, notice] }).expect(400);
    expect(batch.body.code).toBe('invalid_parameter');
    expect((await get(account, '/v3/events').expect(200)).body.events).toEqual([]);
    const types = (await get(account, '/v3/events/types').expect(200)).body.types as Array<{ type: string; group: string }>;
    expect(types).toHaveLength(32);
    expect(types.filter((t) => t.group === 'webhook').map((t) => t.type)).toEqual(['webhook.failing', 'webhook.disabled']);
  });

  it('serves a webhook stats: deliveries by status, their attempts, success rate, latency and hourly buckets, in both families', async () => {
    if (suite.skip) return;
    const account = await suite.sut.createAccount('Stats');
    let served = 0;
    suite.receiver.respond((request) => {
      if (request.path.startsWith('/fail')) return { status: 500 };
      if (!request.path.startsWith('/stats')) return { status: 200 };
      served++;
      return served <= 2 ? { status: 503 } : { status: 200, delayMs: 20 };
    });
    const webhook = (await post(account, '/v3/Webhook', { url: `${suite.receiver.url}/stats/a`, events: ['email.delivered'] }).expect(201)).body;
    const ids: string[] = [];
    for (let i = 1; i <= 4; i++) ids.push((await internal('/internal/events', { accountId: account.id, type: 'email.delivered', data: delivered(i) }).expect(202)).body.id);

    const stats = await eventually(async () => {
      const { body } = await get(account, `/v3/Webhook/${webhook.id}/stats`).expect(200);
      expect(body.deliveries).toEqual({ pending: 0, retrying: 0, succeeded: 4, failed: 0, skipped: 0, cancelled: 0 });
      expect(body.attempts).toEqual({ total: 6, succeeded: 4, failed: 2 });
      return body;
    }, WAIT_MS);
    expect(stats.successRate).toBeCloseTo(4 / 6, 10);
    expect(stats.latencyMs.p50).toEqual(expect.any(Number));
    expect(stats.latencyMs.p95).toBeGreaterThanOrEqual(stats.latencyMs.p50);
    // 24 hours ago, to the millisecond
    expect(Date.parse(stats.until) - Date.parse(stats.since)).toBe(24 * HOUR_MS);
    expect(stats.buckets).toHaveLength(Math.floor(Date.parse(stats.until) / HOUR_MS) - Math.floor(Date.parse(stats.since) / HOUR_MS) + 1);
    expect(stats.buckets.every((b: { start: string }) => Date.parse(b.start) % HOUR_MS === 0)).toBe(true);
    const sum = (key: 'succeeded' | 'failed') => stats.buckets.reduce((n: number, b: Record<string, number>) => n + b[key], 0);
    expect([sum('succeeded'), sum('failed')]).toEqual([4, 2]);

    const v2 = (await get(account, `/v2/webhooks/${webhook.id}/stats?since=${encodeURIComponent(stats.since)}`).expect(200)).body;
    expect(Object.keys(v2).sort()).toEqual(['attempts', 'buckets', 'deliveries', 'latency_ms', 'since', 'success_rate', 'until']);
    expect(v2.attempts).toEqual(stats.attempts);
    // since is exact: a time just before the first delivery counts all four, one after the last none
    // of them nor their attempts (though they were made in the same hour, maybe)
    const first = (await get(account, `/v3/Webhook/${webhook.id}/deliveries?limit=100`).expect(200)).body.deliveries.at(-1);
    const before = new Date(Date.parse(first.createdAt) - 1).toISOString();
    const fromFirst = (await get(account, `/v3/Webhook/${webhook.id}/stats?since=${encodeURIComponent(before)}`).expect(200)).body;
    expect([fromFirst.since, fromFirst.deliveries, fromFirst.attempts]).toEqual([before, stats.deliveries, stats.attempts]);
    const asked = new Date().toISOString();
    const later = (await get(account, `/v3/Webhook/${webhook.id}/stats?since=${encodeURIComponent(asked)}`).expect(200)).body;
    expect([later.since, later.deliveries.succeeded, later.attempts, later.successRate]).toEqual([asked, 0, { total: 0, succeeded: 0, failed: 0 }, null]);
    expect(later.buckets[0].start).toBe(new Date(Math.floor(Date.parse(asked) / HOUR_MS) * HOUR_MS).toISOString());

    for (const since of ['yesterday', '2020-01-01T00:00:00Z', new Date(Date.now() + HOUR_MS).toISOString()]) {
      const { body } = await get(account, `/v3/Webhook/${webhook.id}/stats?since=${encodeURIComponent(since)}`).expect(400);
      expect(body.code).toBe('invalid_parameter');
    }
    const stranger = await suite.sut.createAccount('Stranger');
    expect((await get(stranger, `/v3/Webhook/${webhook.id}/stats`).expect(404)).body.code).toBe('not_found');
    expect(ids).toHaveLength(4);
  });
});
