import Stripe from 'stripe';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { isValid, isValidStandardWebhook, parseSignatureHeader } from '../../libs/signing/src';
import { TypeormDatabase } from '../../libs/adapters/sql/src/typeorm-database';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from '../support/eventually';
import { sleep } from '../support/waiting';
import { DIST, startProcess, waitForOutput } from '../support/processes';
import { ReceivedRequest, Receiver, startReceiver } from '../support/receiver';
import { PROFILES, profileAvailable, startTestApp, TestApp } from '../support/test-app';

/** Fast schedules so that a whole retry run takes a fraction of a second. */
const ENV = {
  DELIVERY_RETRY_SCHEDULE: '50ms,50ms,50ms',
  DELIVERY_TIMEOUT_MS: '1000',
  WEBHOOK_DISABLE_AFTER: '5',
  SECRET_ROTATION_GRACE: '1h',
  // a few calls per receiver at a time, so that a test can act while deliveries still wait
  DISPATCHER_ORIGIN_CONCURRENCY: '8',
};
const ATTEMPTS_PER_DELIVERY = 4;
const WAIT_MS = 15_000;

const delivered = (idSending = 1001) => ({ email: 'jane@example.com', idSending, sendingType: 1, diagCode: '250 2.0.0 OK', deliveredAt: '2025-11-22T02:00:00.000Z' });
const bounced = { email: 'jane@example.com', idSending: 7, sendingType: 3, diagCode: null, bounceType: 'hard', bouncedAt: '2025-11-22T02:00:00.000Z' };

interface TestAccount {
  id: number;
  name: string;
  apiKey: string;
}

describe.each(PROFILES)('event webhooks (%s)', (profile) => {
  let sut: TestApp;
  let skip = false;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    skip = !(await profileAvailable(profile));
    if (!skip) sut = await startTestApp(profile, { env: ENV });
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    if (!skip) await sut.close();
  });

  const receiver = async () => {
    const r = await startReceiver();
    receivers.push(r);
    return r;
  };
  const v3 = (account: TestAccount) => ({
    get: (path: string) => sut.http().get(`/v3${path}`).set('api-key', account.apiKey),
    post: (path: string, body?: object) => {
      const request = sut.http().post(`/v3${path}`).set('api-key', account.apiKey);
      return body === undefined ? request : request.send(body);
    },
    put: (path: string, body: object) => sut.http().put(`/v3${path}`).set('api-key', account.apiKey).send(body),
    delete: (path: string) => sut.http().delete(`/v3${path}`).set('api-key', account.apiKey),
  });
  const v2 = (account: TestAccount) => ({
    get: (path: string) => sut.http().get(`/v2${path}`).set('api-key', account.apiKey),
    post: (path: string, body?: object) => {
      const request = sut.http().post(`/v2${path}`).set('api-key', account.apiKey);
      return body === undefined ? request : request.send(body);
    },
    delete: (path: string) => sut.http().delete(`/v2${path}`).set('api-key', account.apiKey),
  });
  const internal = (path: string, body: object) => sut.http().post(`/internal${path}`).set('authorization', `Bearer ${sut.tokens.internal}`).send(body);
  const publish = async (accountId: number, type: string, data: object, extra: object = {}): Promise<string> => {
    const response = await internal('/events', { accountId, type, data, ...extra }).expect(202);
    return response.body.id;
  };
  const createWebhook = async (account: TestAccount, url: string, events: string[] = ['email.delivered']) => {
    const response = await v3(account).post('/Webhook', { url, events }).expect(201);
    return response.body as { id: string; secret: string };
  };
  const webhookOf = async (account: TestAccount, id: string) => (await v3(account).get(`/Webhook/${id}`).expect(200)).body;
  const deliveriesOf = async (account: TestAccount, webhookId: string, query = 'limit=100') =>
    (await v3(account).get(`/Webhook/${webhookId}/deliveries?${query}`).expect(200)).body.deliveries as Array<Record<string, any>>;
  /** The one request the receiver gets (waits for it; fails if there are more). */
  const onlyRequest = async (r: Receiver) =>
    (
      await eventually(() => {
        expect(r.requests).toHaveLength(1);
        return r.requests;
      }, WAIT_MS)
    )[0];
  /** Verifies the Standard Webhooks headers of a received delivery with `secret` (throws when they do not verify). */
  const verifyStandard = (request: ReceivedRequest, secret: string) =>
    new StandardWebhook(secret).verify(request.body, {
      'webhook-id': request.headers['webhook-id'] as string,
      'webhook-timestamp': request.headers['webhook-timestamp'] as string,
      'webhook-signature': request.headers['webhook-signature'] as string,
    });
  const deliveryOf = async (account: TestAccount, webhookId: string, eventId: string) => {
    const found = (await deliveriesOf(account, webhookId)).find((d) => d.eventId === eventId);
    if (!found) throw new Error(`no delivery of ${eventId}`);
    return found;
  };
  const eventIdOf = (request: ReceivedRequest) => JSON.parse(request.body).id as string;

  it('serves the catalog to both families and documents every route', async () => {
    if (skip) return;
    const account = await sut.createAccount();
    for (const family of [v3(account), v2(account)]) {
      const { body } = await family.get('/events/types').expect(200);
      expect(body.types).toHaveLength(32);
      expect(body.types.find((t: { type: string }) => t.type === 'email.delivered')).toEqual({
        type: 'email.delivered',
        group: 'email',
        description: expect.any(String),
        schema: expect.objectContaining({ required: ['email', 'idSending', 'sendingType', 'diagCode', 'deliveredAt'], additionalProperties: false }),
      });
    }
    await sut.http().get('/v3/events/types').expect(401);

    const docs = await sut.http().get('/docs/json').expect(200);
    const paths = Object.keys(docs.body.paths);
    for (const prefix of ['/v3/Webhook', '/v2/webhooks']) {
      expect(paths).toEqual(
        expect.arrayContaining([
          prefix,
          `${prefix}/{id}`,
          `${prefix}/{id}/enable`,
          `${prefix}/{id}/disable`,
          `${prefix}/{id}/rotate-secret`,
          `${prefix}/{id}/test`,
          `${prefix}/{id}/deliveries`,
          `${prefix}/{id}/deliveries/{deliveryId}`,
          `${prefix}/{id}/deliveries/{deliveryId}/retry`,
          `${prefix}/{id}/recover`,
        ]),
      );
    }
    expect(paths).toEqual(expect.arrayContaining(['/v3/events/types', '/v2/events/types', '/internal/events', '/internal/events/batch']));
    expect(docs.body.paths['/v2/webhooks/{id}'].get.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/WebhookV2View' });
    expect(docs.body.components.schemas.WebhookV2View.properties).toHaveProperty('api_version');
  });

  it('creates, reads, lists, updates and deletes webhooks, camelCase on v3 and snake_case on v2', async () => {
    if (skip) return;
    const account = await sut.createAccount();
    const r = await receiver();

    const created = await v3(account).post('/Webhook', { url: `${r.url}/a`, events: ['email.delivered'], description: 'CRM' }).expect(201);
    const iso = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^wh_/),
      url: `${r.url}/a`,
      events: ['email.delivered'],
      description: 'CRM',
      state: 'enabled',
      apiVersion: 'v3',
      consecutiveFailures: 0,
      disabledAt: null,
      disabledReason: null,
      createdAt: iso,
      updatedAt: iso,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const { secret, ...shown } = created.body;
    expect(Object.keys(created.body)).toEqual([...Object.keys(shown), 'secret']);
    expect((await v3(account).get(`/Webhook/${shown.id}`).expect(200)).body).toEqual(shown);

    const snake = await v2(account).post('/webhooks', { url: `${r.url}/b`, events: ['sms.sent', 'sms.failed'] }).expect(201);
    expect(snake.body).toEqual({
      id: expect.stringMatching(/^wh_/),
      url: `${r.url}/b`,
      events: ['sms.sent', 'sms.failed'],
      description: null,
      state: 'enabled',
      api_version: 'v2',
      consecutive_failures: 0,
      disabled_at: null,
      disabled_reason: null,
      created_at: iso,
      updated_at: iso,
      secret: expect.stringMatching(/^whsec_/),
    });

    expect((await v3(account).get('/Webhook').expect(200)).body.webhooks.map((w: { id: string }) => w.id)).toEqual([shown.id, snake.body.id]);
    expect((await v2(account).get('/webhooks').expect(200)).body.webhooks[0]).toHaveProperty('consecutive_failures', 0);

    const updated = await v3(account).put(`/Webhook/${shown.id}`, { events: ['email.bounced'], description: null }).expect(200);
    expect(updated.body).toMatchObject({ url: `${r.url}/a`, events: ['email.bounced'], description: null });
    expect(JSON.stringify(updated.body)).not.toContain('whsec_');

    await v2(account).delete(`/webhooks/${snake.body.id}`).expect(204);
    await v2(account).get(`/webhooks/${snake.body.id}`).expect(404);
    expect(sut.logs.join('')).not.toContain(secret);
  });

  it('enforces the limits and the validation rules', async () => {
    if (skip) return;
    const account = await sut.createAccount();
    const url = 'https://hooks.example.com/in';
    const refuse = async (body: object, code: string) => {
      const response = await v3(account).post('/Webhook', body);
      expect([response.status, response.body]).toEqual([400, { code, message: expect.any(String) }]);
    };
    const catalog: string[] = (await v3(account).get('/events/types')).body.types.map((t: { type: string }) => t.type);

    await refuse({ url, events: [...catalog, ...catalog.slice(0, 21)] }, 'limit_exceeded');
    await refuse({ url, events: [...catalog, ...Array.from({ length: 21 }, (_, i) => `nope.${i}`)] }, 'limit_exceeded');
    await refuse({ url, events: ['email.nope'] }, 'invalid_parameter');
    await refuse({ url, events: ['email.delivered', 'email.delivered'] }, 'invalid_parameter');
    await refuse({ url, events: [] }, 'invalid_parameter');
    await refuse({ url: 'ftp://example.com/x', events: ['email.delivered'] }, 'invalid_parameter');
    await refuse({ url: 'not a url', events: ['email.delivered'] }, 'invalid_parameter');
    await refuse({ url: `https://example.com/${'a'.repeat(2048)}`, events: ['email.delivered'] }, 'invalid_parameter');
    await refuse({ events: ['email.delivered'] }, 'invalid_parameter');
    await refuse({ url, events: ['email.delivered'], extra: true }, 'invalid_parameter');
    // A route that takes no body refuses a field, as every route refuses an unknown one; {} and no body are fine.
    const { id: plain } = (await v3(account).post('/Webhook', { url, events: ['email.delivered'] }).expect(201)).body;
    for (const action of ['enable', 'disable', 'rotate-secret']) {
      const misspelt = await v3(account).post(`/Webhook/${plain}/${action}`, { reason: 'x' });
      expect([misspelt.status, misspelt.body]).toEqual([400, { code: 'invalid_parameter', message: 'property reason should not exist' }]);
      await v3(account).post(`/Webhook/${plain}/${action}`, {}).expect(200);
      await v3(account).post(`/Webhook/${plain}/${action}`).expect(200);
    }
    await v3(account).delete(`/Webhook/${plain}`).expect(204);
    // A lone surrogate is no text: each database stored a different U+FFFD in its place.
    await refuse({ url, events: ['email.delivered'], description: 'a\ud800b' }, 'invalid_parameter');
    const named = await sut.http().post('/admin/accounts').set('authorization', `Bearer ${sut.tokens.admin}`).send({ name: 'Ac\ud83dme' });
    expect([named.status, named.body.code]).toEqual([400, 'invalid_parameter']);

    for (let i = 0; i < 20; i++) await v3(account).post('/Webhook', { url, events: ['email.delivered'] }).expect(201);
    await refuse({ url, events: ['email.delivered'] }, 'limit_exceeded');
    const other = await sut.createAccount('Other');
    await v2(other).post('/webhooks', { url, events: ['email.delivered'] }).expect(201);
  });

  it('refuses private and loopback targets when ALLOW_PRIVATE_TARGETS=false', async () => {
    if (skip) return;
    const strict = await startTestApp(profile, { env: { ...ENV, ALLOW_PRIVATE_TARGETS: 'false' } });
    try {
      const account = await strict.createAccount();
      for (const url of ['http://127.0.0.1:8080/hook', 'http://10.0.0.8/hook', 'http://169.254.169.254/latest', 'http://[::1]/hook', 'http://localhost/hook']) {
        const response = await strict.http().post('/v3/Webhook').set('api-key', account.apiKey).send({ url, events: ['email.delivered'] });
        expect([url, response.status, response.body.code]).toEqual([url, 400, 'invalid_parameter']);
      }
      await strict.http().post('/v3/Webhook').set('api-key', account.apiKey).send({ url: 'https://hooks.example.com/in', events: ['email.delivered'] }).expect(201);
    } finally {
      await strict.close();
    }
  });

  it("answers 404 for another account's webhook on every route", async () => {
    if (skip) return;
    const owner = await sut.createAccount('Owner');
    const stranger = await sut.createAccount('Stranger');
    const r = await receiver();
    const { id } = await createWebhook(owner, `${r.url}/owner`);
    const eventId = await publish(owner.id, 'email.delivered', delivered());
    const { id: deliveryId } = await eventually(() => deliveryOf(owner, id, eventId), WAIT_MS);

    const attempts = [
      v3(stranger).get(`/Webhook/${id}`),
      v3(stranger).put(`/Webhook/${id}`, { description: 'x' }),
      v3(stranger).delete(`/Webhook/${id}`),
      v3(stranger).post(`/Webhook/${id}/enable`),
      v3(stranger).post(`/Webhook/${id}/disable`),
      v3(stranger).post(`/Webhook/${id}/rotate-secret`),
      v3(stranger).post(`/Webhook/${id}/test`),
      v3(stranger).get(`/Webhook/${id}/deliveries`),
      v3(stranger).get(`/Webhook/${id}/deliveries/${deliveryId}`),
      v2(stranger).get(`/webhooks/${id}/deliveries/${deliveryId}`),
      v3(stranger).post(`/Webhook/${id}/deliveries/${deliveryId}/retry`),
      v3(stranger).post(`/Webhook/${id}/recover`, { since: '2020-01-01T00:00:00Z' }),
      v2(stranger).get(`/webhooks/${id}`),
      v2(stranger).delete(`/webhooks/${id}`),
    ];
    for (const response of await Promise.all(attempts)) expect([response.status, response.body.code]).toEqual([404, 'not_found']);
    expect((await v3(stranger).get('/Webhook').expect(200)).body).toEqual({ webhooks: [] });
    expect((await webhookOf(owner, id)).state).toBe('enabled');
    await publish(stranger.id, 'email.delivered', delivered());
    await eventually(async () => expect((await deliveryOf(owner, id, eventId)).status).toBe('succeeded'), WAIT_MS);
    expect(r.requests).toHaveLength(1);
  });

  it('delivers the exact envelope with the contract headers, verifiable with Stripe, Standard Webhooks and libs/signing', async () => {
    if (skip) return;
    const account = await sut.createAccount('Zoë & Co — "ünïcödé"');
    const r = await receiver();
    const { id: webhookId, secret } = await createWebhook(account, `${r.url}/hooks?x=1`);
    const data = { ...delivered(), email: 'zoë@example.org' };

    const eventId = await publish(account.id, 'email.delivered', { ...data, email: 'zoe@example.org' }, { created: 1732238400 });
    const request = await onlyRequest(r);

    const expected = JSON.stringify({
      id: eventId,
      type: 'email.delivered',
      created: 1732238400,
      apiVersion: 'v3',
      account: { id: account.id, name: account.name },
      data: { ...data, email: 'zoe@example.org' },
    });
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/hooks?x=1');
    expect(request.body).toBe(expected);
    expect(request.rawBody.equals(Buffer.from(expected, 'utf8'))).toBe(true);
    const signature = request.headers['x-service-signature'] as string;
    const { timestamp } = parseSignatureHeader(signature);
    expect(Math.abs(timestamp - Date.now() / 1000)).toBeLessThan(30);
    expect(request.headers).toMatchObject({
      'content-type': 'application/json',
      'x-service-signature': expect.stringMatching(/^t=\d+,v1=[0-9a-f]{64}$/),
      'x-service-event-id': eventId,
      'x-service-event-type': 'email.delivered',
      'user-agent': expect.stringMatching(/^[A-Za-z][\w.-]*\/\d+\.\d+\.\d+$/),
      'webhook-id': eventId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/),
    });

    expect(Stripe.webhooks.constructEvent(request.rawBody, signature, secret)).toMatchObject({ id: eventId });
    expect(new Stripe('sk_test_x').webhooks.constructEvent(request.body, signature, secret)).toMatchObject({ type: 'email.delivered' });
    const standard = new StandardWebhook(secret).verify(request.rawBody.toString('utf8'), {
      'webhook-id': request.headers['webhook-id'] as string,
      'webhook-timestamp': request.headers['webhook-timestamp'] as string,
      'webhook-signature': request.headers['webhook-signature'] as string,
    });
    expect(standard).toMatchObject({ id: eventId });
    expect(request.headers['x-service-test']).toBeUndefined(); // only the test route's deliveries carry it
    expect(isValid(request.rawBody, signature, secret)).toBe(true);
    expect(isValidStandardWebhook(request.rawBody, request.headers, secret)).toBe(true);
    expect(() => Stripe.webhooks.constructEvent(request.body.replace('zoe@', 'eve@'), signature, secret)).toThrow();

    const delivery = await eventually(async () => {
      const d = await deliveryOf(account, webhookId, eventId);
      expect(d.status).toBe('succeeded');
      return d;
    }, WAIT_MS);
    expect(delivery).toEqual({
      id: expect.stringMatching(/^del_/),
      eventId,
      eventType: 'email.delivered',
      status: 'succeeded',
      attempts: [
        {
          at: expect.any(String),
          durationMs: expect.any(Number),
          httpStatus: 200,
          error: null,
          responseBody: '',
          // what was sent (CONTRACT 9.3): exactly the headers the receiver saw, host and content-length included
          requestHeaders: { ...request.headers },
        },
      ],
      nextAttemptAt: null,
      createdAt: expect.any(String),
    });
  });

  it('fans out to every subscribed webhook of the account, in its family, with one event id', async () => {
    if (skip) return;
    const account = await sut.createAccount();
    const r = await receiver();
    await createWebhook(account, `${r.url}/delivered`, ['email.delivered']);
    await createWebhook(account, `${r.url}/bounced`, ['email.bounced']);
    await createWebhook(account, `${r.url}/both`, ['email.bounced', 'email.delivered']);
    await v2(account).post('/webhooks', { url: `${r.url}/v2`, events: ['email.delivered'] }).expect(201);

    const deliveredId = await publish(account.id, 'email.delivered', delivered());
    const bouncedId = await publish(account.id, 'email.bounced', bounced);

    await eventually(() => expect(r.requests).toHaveLength(5), WAIT_MS);
    const got = (path: string) => r.requestsTo(path).map((q) => [eventIdOf(q), JSON.parse(q.body).apiVersion]);
    expect(got('/delivered')).toEqual([[deliveredId, 'v3']]);
    expect(got('/bounced')).toEqual([[bouncedId, 'v3']]);
    expect(got('/both').sort()).toEqual([[bouncedId, 'v3'], [deliveredId, 'v3']].sort());
    expect(got('/v2')).toEqual([[deliveredId, 'v2']]);
    const [v3Body, v2Body] = [r.requestsTo('/delivered')[0].body, r.requestsTo('/v2')[0].body];
    expect(v2Body).toBe(v3Body.replace('"apiVersion":"v3"', '"apiVersion":"v2"'));
  });

  it('accepts a repeated id once, takes batches of up to 1000 and validates every event', async () => {
    if (skip) return;
    const account = await sut.createAccount();
    const r = await receiver();
    const { id: webhookId } = await createWebhook(account, `${r.url}/in`);

    const first = await internal('/events', { accountId: account.id, type: 'email.delivered', data: delivered(), id: 'evt_order_1001' }).expect(202);
    const again = await internal('/events', { accountId: account.id, type: 'email.delivered', data: delivered(), id: 'evt_order_1001' }).expect(202);
    expect(first.body).toEqual({ id: 'evt_order_1001' });
    expect(again.body).toEqual(first.body);

    const batch = await internal('/events/batch', {
      events: [
        { accountId: account.id, type: 'email.delivered', data: delivered(1) },
        { accountId: account.id, type: 'email.bounced', data: bounced },
        { accountId: account.id, type: 'email.delivered', data: delivered(2), id: 'evt_order_1001' },
      ],
    }).expect(202);
    expect(batch.body).toEqual({ ids: [expect.stringMatching(/^evt_/), expect.stringMatching(/^evt_/), 'evt_order_1001'] });

    await eventually(async () => expect((await deliveriesOf(account, webhookId)).map((d) => d.status)).toEqual(['succeeded', 'succeeded']), WAIT_MS);
    expect(r.requests.map(eventIdOf).sort()).toEqual(['evt_order_1001', batch.body.ids[0]].sort());

    const tooMany = await internal('/events/batch', { events: Array.from({ length: 1001 }, () => ({ accountId: account.id, type: 'email.delivered', data: delivered() })) });
    expect([tooMany.status, tooMany.body.code]).toEqual([400, 'limit_exceeded']);
    const invalid = await internal('/events/batch', { events: [{ accountId: account.id, type: 'email.delivered', data: delivered() }, { accountId: account.id, type: 'email.delivered', data: { email: 'x@example.com' } }] });
    expect([invalid.status, invalid.body.code, invalid.body.message]).toEqual([400, 'invalid_parameter', expect.stringContaining('events[1].data')]);
    // 1e400 parses as Infinity, which would be stored as null
    const overflow = await sut
      .http()
      .post('/internal/events')
      .set('authorization', `Bearer ${sut.tokens.internal}`)
      .set('content-type', 'application/json')
      .send(`{"accountId":${account.id},"type":"email.delivered","data":${JSON.stringify(delivered()).slice(0, -1)},"diagCode":-1e400}}`);
    expect([overflow.status, overflow.body]).toEqual([400, { code: 'invalid_parameter', message: 'the request body holds a number too large for a double (beyond ±1.8e308)' }]);
    const unknownType = await internal('/events', { accountId: account.id, type: 'email.nope', data: {} });
    expect([unknownType.status, unknownType.body.code]).toEqual([400, 'invalid_parameter']);
    const unknownAccount = await internal('/events', { accountId: 99_999_999, type: 'email.delivered', data: delivered() });
    expect([unknownAccount.status, unknownAccount.body.code]).toEqual([404, 'not_found']);
    await sut.http().post('/internal/events').send({ accountId: account.id, type: 'email.delivered', data: delivered() }).expect(401);
    await sut.http().post('/internal/events').set('authorization', `Bearer ${sut.tokens.admin}`).send({}).expect(401);

    const big = await internal('/events/batch', { events: Array.from({ length: 1000 }, (_, i) => ({ accountId: account.id, type: 'email.bounced', data: { ...bounced, idSending: i + 1 } })) });
    expect([big.status, big.body.ids.length, new Set(big.body.ids).size]).toEqual([202, 1000, 1000]);
  });

  it('retries on the schedule with the same event id until failed; a manual retry makes one more attempt', async () => {
    if (skip) return;
    const account = await sut.createAccount();
    const r = await receiver();
    r.respond({ status: 500, body: 'try later' });
    const { id: webhookId } = await createWebhook(account, `${r.url}/flaky`);
    const eventId = await publish(account.id, 'email.delivered', delivered());

    const failed = await eventually(async () => {
      const d = await deliveryOf(account, webhookId, eventId);
      expect(d.status).toBe('failed');
      return d;
    }, WAIT_MS);
    expect(failed.attempts).toHaveLength(ATTEMPTS_PER_DELIVERY);
    expect(failed.attempts.every((a: Record<string, unknown>) => a.httpStatus === 500 && a.error === null && a.responseBody === 'try later')).toBe(true);
    expect(failed.nextAttemptAt).toBeNull();
    expect(r.requests).toHaveLength(ATTEMPTS_PER_DELIVERY);
    expect(new Set(r.requests.map(eventIdOf))).toEqual(new Set([eventId]));
    expect(new Set(r.requests.map((q) => q.body)).size).toBe(1);
    const gaps = r.requests.slice(1).map((q, i) => q.at - r.requests[i].at);
    expect(gaps.every((gap) => gap >= 45)).toBe(true); // the 50 ms schedule (timer granularity aside)

    r.respond({ status: 204 });
    await v3(account).post(`/Webhook/${webhookId}/deliveries/${failed.id}/retry`).expect(202);
    const retried = await eventually(async () => {
      const d = await deliveryOf(account, webhookId, eventId);
      expect(d.status).toBe('succeeded');
      return d;
    }, WAIT_MS);
    expect(retried.attempts.map((a: { httpStatus: number }) => a.httpStatus)).toEqual([500, 500, 500, 500, 204]);
    expect(eventIdOf(r.requests[ATTEMPTS_PER_DELIVERY])).toBe(eventId);
    await v3(account).post(`/Webhook/${webhookId}/deliveries/del_00000000000000000000000000/retry`).expect(404);
  });

  it('retries the failures of a receiver that answers most calls: none is cancelled, every event gets through', async () => {
    if (skip) return;
    const account = await sut.createAccount();
    // Every tenth event fails its first attempt only, among successes recorded in the same batches.
    const failedOnce = new Set<string>();
    const r = await receiver();
    r.respond((request) => {
      const { id, data } = JSON.parse(request.body) as { id: string; data: { idSending: number } };
      if (data.idSending % 10 !== 0 || failedOnce.has(id)) return { status: 200 };
      failedOnce.add(id);
      return { status: 500 };
    });
    const { id: webhookId } = await createWebhook(account, `${r.url}/in`);
    await internal('/events/batch', { events: Array.from({ length: 100 }, (_, i) => ({ accountId: account.id, type: 'email.delivered', data: delivered(i + 10) })) }).expect(202);

    await eventually(async () => expect((await deliveriesOf(account, webhookId)).filter((d) => d.status === 'succeeded')).toHaveLength(100), WAIT_MS);
    expect(failedOnce.size).toBe(10);
    const retried = (await deliveriesOf(account, webhookId)).filter((d) => d.attempts.length === 2);
    expect(retried.map((d) => d.attempts.map((a: { httpStatus: number }) => a.httpStatus))).toEqual(Array.from({ length: 10 }, () => [500, 200]));
  });

  it('counts a timeout and a redirect as failed attempts, and never follows the redirect', async () => {
    if (skip) return;
    const account = await sut.createAccount();
    const slow = await receiver();
    slow.respond({ status: 200, delayMs: 3000 });
    const redirecting = await receiver();
    redirecting.respond((request) => (request.path === '/moved' ? { status: 302, headers: { location: `${redirecting.url}/elsewhere` } } : { status: 200 }));
    const { id: slowId } = await createWebhook(account, `${slow.url}/slow`);
    const { id: movedId } = await createWebhook(account, `${redirecting.url}/moved`);
    const eventId = await publish(account.id, 'email.delivered', delivered());

    const moved = await eventually(async () => {
      const d = await deliveryOf(account, movedId, eventId);
      expect(d.status).toBe('failed');
      return d;
    }, WAIT_MS);
    expect(moved.attempts).toHaveLength(ATTEMPTS_PER_DELIVERY);
    expect(moved.attempts.every((a: Record<string, unknown>) => a.httpStatus === 302 && a.error === null)).toBe(true);
    expect(redirecting.requestsTo('/moved')).toHaveLength(ATTEMPTS_PER_DELIVERY);
    expect(redirecting.requestsTo('/elsewhere')).toHaveLength(0);

    const timedOut = await eventually(async () => {
      const d = await deliveryOf(account, slowId, eventId);
      expect(d.attempts.length).toBeGreaterThan(0);
      return d;
    }, WAIT_MS);
    expect(timedOut.status).toBe('retrying');
    expect(timedOut.attempts[0]).toMatchObject({ httpStatus: null, error: 'timeout', responseBody: '' });
    expect(timedOut.attempts[0].durationMs).toBeGreaterThanOrEqual(900);
    await v3(account).post(`/Webhook/${slowId}/disable`).expect(200);
  });

  it('tells apart producer event ids that differ only in case, alone and in a batch', async () => {
    if (skip) return;
    const account = await sut.createAccount();
    const r = await receiver();
    const { id: webhookId } = await createWebhook(account, `${r.url}/in`);

    await publish(account.id, 'email.delivered', delivered(1), { id: 'evt_CaseA' });
    await publish(account.id, 'email.delivered', delivered(2), { id: 'evt_casea' });
    const batch = await internal('/events/batch', {
      events: [
        { accountId: account.id, type: 'email.delivered', data: delivered(3), id: 'evt_BDup' },
        { accountId: account.id, type: 'email.delivered', data: delivered(4), id: 'evt_bdup' },
      ],
    }).expect(202);
    expect(batch.body).toEqual({ ids: ['evt_BDup', 'evt_bdup'] });

    const ids = ['evt_CaseA', 'evt_casea', 'evt_BDup', 'evt_bdup'];
    await eventually(async () => expect((await deliveriesOf(account, webhookId)).map((d) => d.eventId).sort()).toEqual([...ids].sort()), WAIT_MS);
    await eventually(() => expect(r.requests.map(eventIdOf).sort()).toEqual([...ids].sort()), WAIT_MS);
    for (const [i, id] of ids.entries()) {
      expect((await v3(account).get(`/events/${id}`).expect(200)).body).toMatchObject({ id, data: { idSending: i + 1 } });
    }
    if (profile === 'mysql-nats') {
      const caseBlind = await sut.app.get(TypeormDatabase).query<{ name: string }>(
        `SELECT CONCAT(TABLE_NAME, '.', COLUMN_NAME) AS name FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE()
         AND CHARACTER_SET_NAME IS NOT NULL AND COLLATION_NAME <> 'utf8mb4_bin' AND (COLUMN_NAME = 'id' OR COLUMN_NAME REGEXP '_(id|token|hash|key|sealed)$')`,
      );
      expect(caseBlind.map((c) => c.name)).toEqual([]);
    }
  });

  it('paces an endpoint that answers 429 with Retry-After, and only that endpoint: another account on the same host is not held', async () => {
    if (skip) return;
    const [busy, neighbour] = [await sut.createAccount(), await sut.createAccount()];
    const r = await receiver();
    r.respond((request) => (request.path === '/busy' ? { status: 429, headers: { 'retry-after': '5' } } : { status: 200 }));
    const busyHook = await createWebhook(busy, `${r.url}/busy`);
    const neighbourHook = await createWebhook(neighbour, `${r.url}/neighbour`);

    const paced = await publish(busy.id, 'email.delivered', delivered(1));
    await eventually(async () => expect((await deliveryOf(busy, busyHook.id, paced)).attempts).toHaveLength(1), WAIT_MS);
    const first = await deliveryOf(busy, busyHook.id, paced);
    // The schedule says 50 ms; the receiver asked for 5 s, and the delivery says when it will be.
    expect(new Date(first.nextAttemptAt).getTime() - new Date(first.attempts[0].at).getTime()).toBeGreaterThanOrEqual(4_900);

    const publishedAt = Date.now();
    const other = await publish(neighbour.id, 'email.delivered', delivered(2));
    await eventually(async () => expect((await deliveryOf(neighbour, neighbourHook.id, other)).status).toBe('succeeded'), WAIT_MS);
    expect(Date.now() - publishedAt).toBeLessThan(3_000);
    expect(r.requests.filter((request) => request.path === '/busy')).toHaveLength(1);
  });

  it('disables at exactly WEBHOOK_DISABLE_AFTER consecutive failures, skips while disabled, and enable plus recover bring everything back', async () => {
    if (skip) return;
    const account = await sut.createAccount();
    const r = await receiver();
    const { id } = await createWebhook(account, `${r.url}/in`);
    const since = new Date(Date.now() - 1000).toISOString();
    const statusOf = async (eventId: string) => (await deliveryOf(account, id, eventId)).status;
    const settles = (eventId: string, status: string) => eventually(async () => expect(await statusOf(eventId)).toBe(status), WAIT_MS);

    r.respond({ status: 500 });
    const e1 = await publish(account.id, 'email.delivered', delivered(1));
    await settles(e1, 'failed');
    expect(await webhookOf(account, id)).toMatchObject({ state: 'enabled', consecutiveFailures: 4 });

    r.respond({ status: 200 });
    const e2 = await publish(account.id, 'email.delivered', delivered(2));
    await settles(e2, 'succeeded');
    expect(await webhookOf(account, id)).toMatchObject({ state: 'enabled', consecutiveFailures: 0 });

    r.respond({ status: 500 });
    const e3 = await publish(account.id, 'email.delivered', delivered(3));
    await settles(e3, 'failed');
    expect(await webhookOf(account, id)).toMatchObject({ state: 'enabled', consecutiveFailures: 4, disabledAt: null });

    const e4 = await publish(account.id, 'email.delivered', delivered(4));
    await settles(e4, 'skipped');
    const disabled = await webhookOf(account, id);
    expect(disabled).toMatchObject({ state: 'disabled', consecutiveFailures: 5, disabledAt: expect.any(String) });
    expect((await deliveryOf(account, id, e4)).attempts).toHaveLength(1);

    const e5 = await publish(account.id, 'email.delivered', delivered(5));
    expect(await deliveryOf(account, id, e5)).toMatchObject({ status: 'skipped', attempts: [], nextAttemptAt: null });
    const skipped = (await v2(account).get(`/webhooks/${id}/deliveries?status=skipped`).expect(200)).body;
    expect(skipped.deliveries.map((d: { event_id: string }) => d.event_id).sort()).toEqual([e4, e5].sort());

    // Retry and recover are refused while it is disabled: they would only be skipped again.
    const retryRefused = await v3(account).post(`/Webhook/${id}/deliveries/${(await deliveryOf(account, id, e4)).id}/retry`);
    const recoverRefused = await v2(account).post(`/webhooks/${id}/recover`, { since });
    for (const refused of [retryRefused, recoverRefused]) {
      expect([refused.status, refused.body]).toEqual([400, { code: 'invalid_parameter', message: `webhook ${id} is disabled; enable it first, then retry or recover` }]);
    }

    r.respond({ status: 200 });
    const enabled = await v3(account).post(`/Webhook/${id}/enable`).expect(200);
    expect(enabled.body).toMatchObject({ state: 'enabled', consecutiveFailures: 0, disabledAt: null });
    const e6 = await publish(account.id, 'email.delivered', delivered(6));
    await settles(e6, 'succeeded');

    const requestsBefore = r.requests.length;
    const recovered = await v3(account).post(`/Webhook/${id}/recover`, { since }).expect(202);
    expect(recovered.body).toEqual({ count: 4 });
    for (const eventId of [e1, e3, e4, e5]) await settles(eventId, 'succeeded');
    expect(r.requests.slice(requestsBefore).map(eventIdOf).sort()).toEqual([e1, e3, e4, e5].sort());
    expect((await v3(account).post(`/Webhook/${id}/recover`, { since }).expect(202)).body).toEqual({ count: 0 });
    const bad = await v3(account).post(`/Webhook/${id}/recover`, { since: 'last tuesday' });
    expect([bad.status, bad.body.code]).toEqual([400, 'invalid_parameter']);
  });

  it('gives two concurrent rotations each a secret that signs (the second builds on the first)', async () => {
    if (skip) return;
    const account = await sut.createAccount();
    const r = await receiver();
    const { id } = await createWebhook(account, `${r.url}/in`);
    const rotations = await Promise.all([1, 2].map(() => v3(account).post(`/Webhook/${id}/rotate-secret`).expect(200)));
    await publish(account.id, 'email.delivered', delivered());
    const request = await onlyRequest(r);
    const header = request.headers['x-service-signature'] as string;
    for (const rotation of rotations) expect(() => Stripe.webhooks.constructEvent(request.rawBody, header, rotation.body.secret)).not.toThrow();
  });

  it('keeps signing with every secret rotated out within its grace: rotating twice leaves three signatures', async () => {
    if (skip) return;
    const account = await sut.createAccount();
    const r = await receiver();
    const { id, secret: a } = await createWebhook(account, `${r.url}/in`);
    const b = (await v3(account).post(`/Webhook/${id}/rotate-secret`).expect(200)).body.secret as string;
    const c = (await v3(account).post(`/Webhook/${id}/rotate-secret`).expect(200)).body.secret as string;
    await publish(account.id, 'email.delivered', delivered());
    const request = await onlyRequest(r);
    const header = request.headers['x-service-signature'] as string;
    const { timestamp, signatures } = parseSignatureHeader(header);
    expect(signatures).toHaveLength(3);
    [c, b, a].forEach((secret, i) => expect(isValid(request.rawBody, `t=${timestamp},v1=${signatures[i]}`, secret)).toBe(true));
    for (const secret of [a, b, c]) expect(() => verifyStandard(request, secret)).not.toThrow();
  });

  it('signs with both secrets during the rotation window, newest first', async () => {
    if (skip) return;
    const account = await sut.createAccount();
    const r = await receiver();
    const { id, secret: old } = await createWebhook(account, `${r.url}/in`);
    const rotated = await v3(account).post(`/Webhook/${id}/rotate-secret`).expect(200);
    expect(rotated.body).toEqual({ secret: expect.stringMatching(/^whsec_/) });
    const fresh = rotated.body.secret as string;

    await publish(account.id, 'email.delivered', delivered());
    const request = await onlyRequest(r);
    const header = request.headers['x-service-signature'] as string;
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    const [newest, oldest] = parseSignatureHeader(header).signatures;
    expect(isValid(request.rawBody, `t=${parseSignatureHeader(header).timestamp},v1=${newest}`, fresh)).toBe(true);
    expect(isValid(request.rawBody, `t=${parseSignatureHeader(header).timestamp},v1=${oldest}`, old)).toBe(true);
    for (const secret of [fresh, old]) {
      expect(() => Stripe.webhooks.constructEvent(request.rawBody, header, secret)).not.toThrow();
      expect(() => verifyStandard(request, secret)).not.toThrow();
    }
    expect((request.headers['webhook-signature'] as string).split(' ')).toHaveLength(2);
  });

  it('lists deliveries newest first with status, limit and cursor, and sends test events', async () => {
    if (skip) return;
    const account = await sut.createAccount();
    const r = await receiver();
    const { id } = await createWebhook(account, `${r.url}/in`, ['sms.sent']);

    const tested = await v3(account).post(`/Webhook/${id}/test`).expect(202);
    expect(tested.body).toEqual({ eventId: expect.stringMatching(/^evt_/) });
    const typed = await v2(account).post(`/webhooks/${id}/test`, { type: 'sms.failed' }).expect(202);
    expect(typed.body).toEqual({ event_id: expect.stringMatching(/^evt_/) });
    const third = await v3(account).post(`/Webhook/${id}/test`, { type: 'import.progress' }).expect(202);
    const unknown = await v3(account).post(`/Webhook/${id}/test`, { type: 'email.nope' });
    expect([unknown.status, unknown.body.code]).toEqual([400, 'invalid_parameter']);

    await eventually(() => expect(r.requests).toHaveLength(3), WAIT_MS);
    expect(r.requests.map((q) => JSON.parse(q.body).type).sort()).toEqual(['email.delivered', 'import.progress', 'sms.failed']);
    expect(r.requests.map((q) => q.headers['x-service-test'])).toEqual(['true', 'true', 'true']); // CONTRACT 9.3
    await eventually(async () => expect((await deliveriesOf(account, id, 'status=succeeded')).length).toBe(3), WAIT_MS);

    const first = (await v3(account).get(`/Webhook/${id}/deliveries?limit=2`).expect(200)).body;
    expect(first.deliveries.map((d: { eventId: string }) => d.eventId)).toEqual([third.body.eventId, typed.body.event_id]);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = (await v3(account).get(`/Webhook/${id}/deliveries?limit=2&cursor=${first.nextCursor}`).expect(200)).body;
    expect(second).toEqual({ deliveries: [expect.objectContaining({ eventId: tested.body.eventId })], nextCursor: null });

    const snake = (await v2(account).get(`/webhooks/${id}/deliveries?limit=1`).expect(200)).body;
    expect(Object.keys(snake)).toEqual(['deliveries', 'next_cursor']);
    expect(Object.keys(snake.deliveries[0])).toEqual(['id', 'event_id', 'event_type', 'status', 'attempts', 'next_attempt_at', 'created_at']);
    expect(Object.keys(snake.deliveries[0].attempts[0])).toEqual(['at', 'duration_ms', 'http_status', 'error', 'response_body', 'request_headers']);

    // One delivery by its id: what the list shows for it, in each family.
    const listed = first.deliveries[0];
    expect((await v3(account).get(`/Webhook/${id}/deliveries/${listed.id}`).expect(200)).body).toEqual(listed);
    const one = (await v2(account).get(`/webhooks/${id}/deliveries/${listed.id}`).expect(200)).body;
    expect(one).toEqual(expect.objectContaining({ id: listed.id, event_id: listed.eventId, event_type: listed.eventType }));
    expect(Object.keys(one)).toEqual(['id', 'event_id', 'event_type', 'status', 'attempts', 'next_attempt_at', 'created_at']);
    for (const unknown of ['del_00000000000000000000000000', 'nope', listed.id.toUpperCase()]) {
      const response = await v3(account).get(`/Webhook/${id}/deliveries/${unknown}`);
      expect([unknown, response.status, response.body.code]).toEqual([unknown, 404, 'not_found']);
    }
    const { id: otherWebhook } = await createWebhook(account, `${r.url}/other`, ['sms.sent']);
    expect((await v3(account).get(`/Webhook/${otherWebhook}/deliveries/${listed.id}`)).status).toBe(404);

    for (const query of ['status=lost', 'limit=0', 'limit=101', 'limit=abc', 'cursor=nope']) {
      const response = await v3(account).get(`/Webhook/${id}/deliveries?${query}`);
      expect([query, response.status, response.body.code]).toEqual([query, 400, 'invalid_parameter']);
    }
    expect((await v3(account).get(`/Webhook/${id}/deliveries?status=failed`).expect(200)).body).toEqual({ deliveries: [], nextCursor: null });
  });

  it('cancels the waiting deliveries of a deleted webhook', async () => {
    if (skip) return;
    const account = await sut.createAccount();
    const r = await receiver();
    r.respond({ status: 200, delayMs: 300 });
    const { id } = await createWebhook(account, `${r.url}/slow`);
    await internal('/events/batch', { events: Array.from({ length: 40 }, (_, i) => ({ accountId: account.id, type: 'email.delivered', data: delivered(i + 1) })) }).expect(202);
    await eventually(() => expect(r.requests.length).toBeGreaterThan(0), WAIT_MS);

    await v3(account).delete(`/Webhook/${id}`).expect(204);

    // Attempts already in flight finish (and are recorded as they ended); the others never start.
    const db = sut.app.get(TypeormDatabase);
    const statuses = await eventually(async () => {
      const rows = await db.query<{ status: string; claim_token: string | null; attempt_count: number | string }>(
        'SELECT status, claim_token, attempt_count FROM deliveries WHERE webhook_id = ?',
        [id],
      );
      expect(rows).toHaveLength(40);
      expect(rows.filter((row) => row.claim_token !== null)).toEqual([]);
      expect(rows.every((row) => row.status === 'succeeded' || row.status === 'cancelled')).toBe(true);
      expect(r.requests).toHaveLength(rows.reduce((sum, row) => sum + Number(row.attempt_count), 0));
      return rows.map((row) => row.status);
    }, WAIT_MS);
    expect(statuses.filter((s) => s === 'cancelled').length).toBeGreaterThan(0);
  });

  /**
   * The shape of a multi-process deployment: an API that only accepts, and two dispatcher processes
   * apart on its database and queue. A small DISPATCHER_CONCURRENCY keeps either from holding every
   * item at once (it may hold 16 times its concurrency), so both get a share.
   */
  const splitDeployment = async (env: Record<string, string> = {}) => {
    const entry = 'apps/dispatcher/src/main.js';
    if (!existsSync(join(DIST, entry))) throw new Error(`${join(DIST, entry)} is missing: run npm run build first (npm test does)`);
    const api = await startTestApp(profile, { env: { ...ENV, ...env, DISPATCHER_ENABLED: 'false' } });
    const { storage, queue } = api.config;
    const shared: Record<string, string> =
      storage.kind === 'sqlite'
        ? { STORAGE: 'sqlite', SQLITE_PATH: storage.sqlitePath, QUEUE: 'database' }
        : { STORAGE: 'mysql', DATABASE_URL: storage.databaseUrl!, QUEUE: 'nats', NATS_URL: queue.natsUrl, NATS_PREFIX: queue.natsPrefix };
    const dispatchers = [1, 2].map(() => startProcess(entry, { ...ENV, ...env, ...shared, ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'debug', DISPATCHER_CONCURRENCY: '4' }));
    const stop = async () => {
      for (const d of dispatchers) d.child.kill('SIGTERM');
      await Promise.all(dispatchers.map((d) => d.exited));
      await api.close();
    };
    try {
      await Promise.all(dispatchers.map((d) => waitForOutput(d, /dispatcher started/)));
    } catch (error) {
      await stop();
      throw error;
    }
    return { api, dispatchers, stop };
  };

  it('lets two dispatcher processes drain one queue without delivering anything twice', async () => {
    if (skip) return;
    const { api, dispatchers, stop } = await splitDeployment();
    try {
      const account = await api.createAccount();
      const r = await receiver();
      r.respond({ status: 200, delayMs: 20 });
      const url = `${r.url}/in`;
      const { id } = (await api.http().post('/v3/Webhook').set('api-key', account.apiKey).send({ url, events: ['email.delivered'] }).expect(201)).body;
      const count = 300;
      const events = Array.from({ length: count }, (_, i) => ({ accountId: account.id, type: 'email.delivered', data: delivered(i + 1) }));
      await api.http().post('/internal/events/batch').set('authorization', `Bearer ${api.tokens.internal}`).send({ events }).expect(202);

      await eventually(async () => {
        const rows = await api.app.get(TypeormDatabase).query<{ n: number | string }>("SELECT COUNT(*) AS n FROM deliveries WHERE webhook_id = ? AND status = 'succeeded'", [id]);
        expect(Number(rows[0].n)).toBe(count);
      }, 30_000);
      expect(r.requests).toHaveLength(count);
      expect(new Set(r.requests.map(eventIdOf)).size).toBe(count);
      // Each dispatcher logs its attempts (at debug level); the lines may trail the commit a little.
      const shares = await eventually(() => {
        const perProcess = dispatchers.map((d) => d.output().match(/"msg":"delivery attempt succeeded"/g)?.length ?? 0);
        expect(perProcess[0] + perProcess[1]).toBe(count);
        return perProcess;
      }, WAIT_MS);
      expect(shares.every((share) => share > 0)).toBe(true);
    } finally {
      await stop();
    }
  });

  it("holds a receiver's Retry-After across dispatcher processes, and waiting deliveries show when the pause ends", async () => {
    if (skip) return;
    const { api, stop } = await splitDeployment({ WEBHOOK_DISABLE_AFTER: '100' });
    try {
      const account = await api.createAccount();
      const r = await receiver();
      r.respond({ status: 429, headers: { 'retry-after': '4' } });
      const { id } = (await api.http().post('/v3/Webhook').set('api-key', account.apiKey).send({ url: `${r.url}/busy`, events: ['email.delivered'] }).expect(201)).body;
      const publishTo = (events: number) =>
        api
          .http()
          .post('/internal/events/batch')
          .set('authorization', `Bearer ${api.tokens.internal}`)
          .send({ events: Array.from({ length: events }, (_, i) => ({ accountId: account.id, type: 'email.delivered', data: delivered(i + 1) })) })
          .expect(202);
      const deliveries = async () => (await api.http().get(`/v3/Webhook/${id}/deliveries?limit=100`).set('api-key', account.apiKey).expect(200)).body.deliveries as Array<Record<string, any>>;

      await publishTo(1);
      // The 429 is recorded (with the pause) once its delivery lists the attempt.
      const [first] = await eventually(async () => {
        const listed = await deliveries();
        expect(listed[0].attempts).toHaveLength(1);
        return listed;
      }, WAIT_MS);
      const pausedAt = r.requests[0].at;
      await publishTo(8);
      const waiting = await deliveries();
      expect(waiting).toHaveLength(9);
      // Every waiting delivery shows the pause's end (4 s after the 429), not a time already past.
      for (const d of waiting) expect(new Date(d.nextAttemptAt).getTime()).toBeGreaterThanOrEqual(new Date(first.attempts[0].at).getTime() + 3_900);
      await sleep(pausedAt + 3_700 - Date.now());
      // Neither dispatcher called the receiver while it asked to wait.
      expect(r.requests.map((request) => request.at - pausedAt)).toEqual([0]);
      await eventually(() => expect(r.requests.length).toBeGreaterThan(1), WAIT_MS);
      expect(r.requests[1].at - pausedAt).toBeGreaterThanOrEqual(3_900);
    } finally {
      await stop();
    }
  });
});
