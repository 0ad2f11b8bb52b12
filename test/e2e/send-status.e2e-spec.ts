import { isValid } from '../../libs/signing/src';
import { sendEventId } from '../../libs/send-status/src';
import { eventually } from '../support/eventually';
import { startProcess, waitForOutput } from '../support/processes';
import { Receiver, startReceiver } from '../support/receiver';
import { PROFILES, profileAvailable, startTestApp, TestApp } from '../support/test-app';
import { sleep } from '../support/waiting';

const DAY = 86_400_000;
/** A report's `at` a little ahead (reports may be up to 5 minutes ahead of the server's clock), so it sorts after the send's creation. */
const secondsFromNow = (seconds: number, from = Date.now()) => new Date(from + seconds * 1000).toISOString();

describe.each(PROFILES)('send status (%s)', (profile) => {
  let sut: TestApp;
  let skip = false;
  let acme: { id: number; name: string; apiKey: string };
  let globex: { id: number; name: string; apiKey: string };
  let receiver: Receiver | undefined;

  beforeAll(async () => {
    skip = !(await profileAvailable(profile));
    if (skip) return;
    sut = await startTestApp(profile);
    acme = await sut.createAccount('Acme');
    globex = await sut.createAccount('Globex');
  });
  afterAll(async () => {
    await receiver?.close();
    if (!skip && sut) await sut.close();
  });

  const internal = () => `Bearer ${sut.tokens.internal}`;
  const admin = () => `Bearer ${sut.tokens.admin}`;
  const createSend = (body: Record<string, unknown>) => sut.http().post('/internal/sends').set('authorization', internal()).send(body);
  const newSend = async (extra: Record<string, unknown> = {}) => {
    const response = await createSend({ accountId: acme.id, email: 'jane@example.com', channel: 'api_v3', ...extra });
    expect(response.status).toBe(201);
    return response.body as { id: string; idSending: number; status: string };
  };
  const report = (id: string, body: Record<string, unknown>) => sut.http().post(`/internal/sends/${encodeURIComponent(id)}/events`).set('authorization', internal()).send(body);
  const v3 = (id: string, apiKey = acme.apiKey) => sut.http().get(`/v3/Send/${encodeURIComponent(id)}/Status`).set('api-key', apiKey);
  const v2 = (id: string, apiKey = acme.apiKey) => sut.http().get(`/v2/send/${encodeURIComponent(id)}/status.json`).set('api-key', apiKey);

  it('records transactional sends and refuses anything else', async () => {
    if (skip) return;
    const queued = await createSend({ accountId: acme.id, email: 'jane@example.com', channel: 'api_v3' }).expect(201);
    expect(queued.body).toEqual({ id: expect.stringMatching(/^msg_[0-9a-z]{26}$/), idSending: expect.any(Number), status: 'queued' });
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const scheduled = await createSend({ accountId: acme.id, email: 'jane@example.com', channel: 'smtp', scheduledAt: later }).expect(201);
    expect(scheduled.body).toMatchObject({ status: 'scheduled' });
    expect(scheduled.body.idSending).not.toBe(queued.body.idSending);
    const past = await createSend({ accountId: acme.id, email: 'jane@example.com', channel: 'automation', scheduledAt: '2024-01-01T00:00:00Z' }).expect(201);
    expect(past.body.status).toBe('queued');

    const refused: Array<[Record<string, unknown>, number, string]> = [
      [{ accountId: acme.id, email: 'jane@example.com', channel: 'campaign' }, 400, 'invalid_parameter'],
      [{ accountId: acme.id, email: 'jane@example.com', channel: 'sms' }, 400, 'invalid_parameter'],
      [{ accountId: acme.id, email: 'not-an-address', channel: 'api_v3' }, 400, 'invalid_parameter'],
      [{ accountId: acme.id, channel: 'api_v3' }, 400, 'invalid_parameter'],
      [{ accountId: String(acme.id), email: 'jane@example.com', channel: 'api_v3' }, 400, 'invalid_parameter'],
      [{ accountId: acme.id, email: 'jane@example.com', channel: 'api_v3', scheduledAt: 'tomorrow' }, 400, 'invalid_parameter'],
      [{ accountId: acme.id, email: 'jane@example.com', channel: 'api_v3', extra: true }, 400, 'invalid_parameter'],
      [{ accountId: 999_999, email: 'jane@example.com', channel: 'api_v3' }, 404, 'not_found'],
    ];
    for (const [body, status, code] of refused) {
      const response = await createSend(body);
      expect({ body, status: response.status, response: response.body }).toEqual({ body, status, response: { code, message: expect.any(String) } });
    }
    await sut.http().post('/internal/sends').set('authorization', admin()).send({ accountId: acme.id, email: 'jane@example.com', channel: 'api_v3' }).expect(401);
    await sut.http().post('/internal/sends').send({ accountId: acme.id, email: 'jane@example.com', channel: 'api_v3' }).expect(401);
  });

  it('reaches every status through reports and reads it in both families', async () => {
    if (skip) return;
    const send = await newSend({ scheduledAt: new Date(Date.now() + 3_600_000).toISOString() });
    expect((await v3(send.id).expect(200)).body.status).toBe('scheduled');
    for (const status of ['queued', 'sent', 'deferred']) {
      const accepted = await report(send.id, { status, ...(status === 'deferred' ? { diagCode: '451 4.7.1 Try again later' } : {}) }).expect(202);
      expect(accepted.body).toEqual({ id: send.id, accepted: true, status });
      expect((await v3(send.id).expect(200)).body.status).toBe(status);
    }
    const deliveredAt = secondsFromNow(5);
    await report(send.id, { status: 'delivered', diagCode: '250 2.0.0 OK', at: deliveredAt }).expect(202);

    const three = await v3(send.id).expect(200);
    expect(three.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(three.body).toEqual({
      id: send.id,
      status: 'delivered',
      email: 'jane@example.com',
      diagCode: '250 2.0.0 OK',
      bounceType: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      history: [
        { status: 'scheduled', at: expect.any(String), diagCode: null },
        { status: 'queued', at: expect.any(String), diagCode: null },
        { status: 'sent', at: expect.any(String), diagCode: null },
        { status: 'deferred', at: expect.any(String), diagCode: '451 4.7.1 Try again later' },
        { status: 'delivered', at: deliveredAt, diagCode: '250 2.0.0 OK' },
      ],
    });
    expect(Date.parse(three.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(three.body.createdAt));
    const two = await v2(send.id).expect(200);
    expect(two.body).toEqual({
      id: send.id,
      status: 'delivered',
      email: 'jane@example.com',
      diag_code: '250 2.0.0 OK',
      bounce_type: null,
      created_at: three.body.createdAt,
      updated_at: three.body.updatedAt,
      history: three.body.history.map((h: { status: string; at: string; diagCode: string | null }) => ({ status: h.status, at: h.at, diag_code: h.diagCode })),
    });

    const bounced = await newSend({ channel: 'api_v2' });
    await report(bounced.id, { status: 'bounced', bounceType: 'hard', diagCode: '550 5.1.1 User unknown' }).expect(202);
    expect((await v2(bounced.id).expect(200)).body).toMatchObject({ status: 'bounced', bounce_type: 'hard', diag_code: '550 5.1.1 User unknown' });
    const soft = await newSend();
    await report(soft.id, { status: 'bounced', bounceType: 'soft' }).expect(202);
    expect((await v3(soft.id).expect(200)).body).toMatchObject({ status: 'bounced', bounceType: 'soft', diagCode: null });
  });

  it('refuses invalid reports and reports of unknown sends', async () => {
    if (skip) return;
    const send = await newSend();
    const invalid = [
      { status: 'delivered' },
      { status: 'bounced' },
      { status: 'bounced', bounceType: 'permanent' },
      { status: 'sent', bounceType: 'hard' },
      { status: 'scheduled' },
      { status: 'opened' },
      { status: 'sent', at: 'yesterday' },
      { status: 'sent', unknown: 1 },
      { diagCode: '250 OK' },
    ];
    for (const body of invalid) {
      const response = await report(send.id, body);
      expect({ body, status: response.status, code: response.body.code }).toEqual({ body, status: 400, code: 'invalid_parameter' });
    }
    const unknown = await report('msg_00000000000000000000000000', { status: 'sent' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ code: 'not_found', message: expect.any(String) });
    expect((await v3(send.id).expect(200)).body.history).toHaveLength(1);
    await sut.http().post(`/internal/sends/${send.id}/events`).set('authorization', admin()).send({ status: 'sent' }).expect(401);
  });

  it('keeps late and repeated reports in the history without moving the status back', async () => {
    if (skip) return;
    const send = await newSend();
    const t0 = Date.now();
    const delivered = { status: 'delivered', diagCode: '250 OK', at: secondsFromNow(5, t0) };
    await report(send.id, delivered).expect(202);
    const late = await report(send.id, { status: 'sent', at: secondsFromNow(1, t0) }).expect(202);
    expect(late.body).toEqual({ id: send.id, accepted: true, status: 'delivered' });
    await report(send.id, { status: 'bounced', bounceType: 'soft', at: secondsFromNow(6, t0) }).expect(202);
    await report(send.id, delivered).expect(202);
    await report(send.id, { status: 'deferred', diagCode: '451', at: secondsFromNow(2, t0) }).expect(202);
    await report(send.id, { status: 'deferred', diagCode: '451', at: secondsFromNow(3, t0) }).expect(202);
    const body = (await v3(send.id).expect(200)).body;
    expect(body).toMatchObject({ status: 'delivered', diagCode: '250 OK', bounceType: null });
    expect(body.history.map((h: { status: string }) => h.status)).toEqual(['queued', 'sent', 'deferred', 'deferred', 'delivered', 'bounced']);
  });

  it('answers an unknown id and another account\'s id with the same bytes, in v3 and v2', async () => {
    if (skip) return;
    const theirs = (await createSend({ accountId: globex.id, email: 'bob@example.com', channel: 'api_v3' }).expect(201)).body.id as string;
    const unknown = `msg_${'0'.repeat(26)}`;
    for (const lookup of [v3, v2]) {
      const other = await lookup(theirs);
      const missing = await lookup(unknown);
      expect(other.status).toBe(404);
      expect(missing.status).toBe(404);
      expect(other.text).toBe(`{"id":"${theirs}","status":"not_found"}`);
      expect(missing.text).toBe(`{"id":"${unknown}","status":"not_found"}`);
      expect(other.text.replace(theirs, 'ID')).toBe(missing.text.replace(unknown, 'ID'));
      for (const header of ['content-type', 'content-length', 'cache-control']) expect(other.headers[header]).toBe(missing.headers[header]);
      // the owner sees it
      expect((await lookup(theirs, globex.apiKey)).status).toBe(200);
      // ids of any shape take the same path, safely encoded
      for (const odd of ['x', 'MSG_' + theirs.slice(4).toUpperCase(), `${theirs} `, 'a"b\\c</script>', 'é\u2028😀', "msg_' OR '1'='1", 'x'.repeat(4000)]) {
        const response = await lookup(odd);
        expect(response.status).toBe(404);
        expect(response.text).toBe(JSON.stringify({ id: odd, status: 'not_found' }));
        expect(JSON.parse(response.text)).toEqual({ id: odd, status: 'not_found' });
      }
    }
    await sut.http().get(`/v3/Send/${theirs}/Status`).expect(401);
    await sut.http().get(`/v2/send/${theirs}/status.json`).set('api-key', 'sk_wrong').expect(401);
  });

  it('applies a batch of reports with one result per item', async () => {
    if (skip) return;
    const a = await newSend();
    const b = await newSend();
    const batch = (events: unknown) => sut.http().post('/internal/sends/events/batch').set('authorization', internal()).send({ events });
    const response = await batch([
      { id: a.id, status: 'sent' },
      { id: 'msg_unknown', status: 'sent' },
      { id: b.id, status: 'delivered' },
      { id: b.id, status: 'bounced', bounceType: 'hard' },
      { id: a.id, status: 'delivered', diagCode: '250 OK' },
    ]).expect(202);
    expect(response.body).toEqual({
      results: [
        { id: a.id, accepted: true, status: 'sent' },
        { id: 'msg_unknown', error: { code: 'not_found', message: expect.any(String) } },
        { id: b.id, error: { code: 'invalid_parameter', message: expect.stringContaining('events[2].diagCode') } },
        { id: b.id, accepted: true, status: 'bounced' },
        { id: a.id, accepted: true, status: 'delivered' },
      ],
    });
    expect((await v3(a.id).expect(200)).body.status).toBe('delivered');
    expect((await v3(b.id).expect(200)).body.status).toBe('bounced');

    const tooMany = await batch(Array.from({ length: 1001 }, () => ({ id: a.id, status: 'sent' })));
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.code).toBe('limit_exceeded');
    for (const events of ['x', undefined]) expect((await batch(events)).status).toBe(400);
    // none is nothing to do, as an empty event batch is
    expect((await batch([]).expect(202)).body).toEqual({ results: [] });
    const full = await batch(Array.from({ length: 1000 }, (_, i) => ({ id: b.id, status: 'sent', at: new Date(Date.now() + i).toISOString() }))).expect(202);
    expect(full.body.results).toHaveLength(1000);
    expect((await v3(b.id).expect(200)).body.history).toHaveLength(1002);
  });

  it('ends many concurrent reports of one send in the right final state', async () => {
    if (skip) return;
    for (let round = 0; round < 2; round++) {
      const send = await newSend();
      const t0 = Date.now();
      const reports = [
        ...Array.from({ length: 20 }, (_, i) => ({ status: 'sent', at: secondsFromNow(i, t0) })),
        ...Array.from({ length: 20 }, (_, i) => ({ status: 'deferred', diagCode: `451 ${i}`, at: secondsFromNow(20 + i, t0) })),
        ...Array.from({ length: 10 }, (_, i) => ({ status: 'delivered', diagCode: `250 ${i}`, at: secondsFromNow(40 + i, t0) })),
        ...Array.from({ length: 10 }, (_, i) => ({ status: 'bounced', bounceType: 'soft', at: secondsFromNow(50 + i, t0) })),
      ].sort(() => Math.random() - 0.5);
      const responses = await Promise.all(reports.map((body) => report(send.id, body)));
      expect(responses.map((r) => r.status)).toEqual(reports.map(() => 202));
      const body = (await v3(send.id).expect(200)).body;
      expect(['delivered', 'bounced']).toContain(body.status);
      expect(body.history).toHaveLength(61);
      // the final report that won is the one whose diagCode the record shows
      const winner = body.history.find((h: { status: string; diagCode: string | null }) => h.status === body.status && h.diagCode === body.diagCode);
      expect(winner).toBeDefined();
    }
  });

  it('purges records past the retention period, at the boundary, on the operator route', async () => {
    if (skip) return;
    const kept = await newSend({ createdAt: new Date(Date.now() - 364 * DAY).toISOString() });
    const purged = await newSend({ createdAt: new Date(Date.now() - 366 * DAY).toISOString() });
    await report(purged.id, { status: 'delivered', diagCode: '250 OK' }).expect(202);
    expect((await v3(purged.id).expect(200)).body.history).toHaveLength(2);

    await sut.http().post('/admin/maintenance/purge-send-status').set('authorization', internal()).expect(401);
    const run = await sut.http().post('/admin/maintenance/purge-send-status').set('authorization', admin()).expect(200);
    expect(run.body).toEqual({ purged: 1 });
    expect((await v3(purged.id)).text).toBe(`{"id":"${purged.id}","status":"not_found"}`);
    expect((await v2(purged.id)).text).toBe(`{"id":"${purged.id}","status":"not_found"}`);
    expect((await report(purged.id, { status: 'sent' })).status).toBe(404);
    const keptBody = (await v3(kept.id).expect(200)).body;
    expect(Date.now() - Date.parse(keptBody.createdAt)).toBeGreaterThan(363 * DAY);
    const again = await sut.http().post('/admin/maintenance/purge-send-status').set('authorization', admin()).expect(200);
    expect(again.body).toEqual({ purged: 0 });
  });

  it('runs the retention purge in the in-process dispatcher at start', async () => {
    if (skip) return;
    await eventually(() => expect(sut.logs.join('')).toMatch(/start purge: \d+ send records|start purge skipped/));
  });

  it('runs the retention purge in a standalone dispatcher (npm run start:dispatcher; built dist)', async () => {
    // The standalone apps are the MySQL + NATS deployment (CONTRACT §8); SQLite is one process.
    if (skip || profile !== 'mysql-nats') return;
    const old = await newSend({ createdAt: new Date(Date.now() - 400 * DAY).toISOString() });
    const { storage, queue } = sut.config;
    const dispatcher = startProcess('apps/dispatcher/src/main.js', {
      STORAGE: 'mysql',
      DATABASE_URL: storage.databaseUrl!,
      QUEUE: 'nats',
      NATS_URL: queue.natsUrl,
      NATS_PREFIX: queue.natsPrefix,
      LOG_LEVEL: 'info',
    });
    try {
      await waitForOutput(dispatcher, /start purge: 1 send records/);
      await waitForOutput(dispatcher, /dispatcher started/);
      expect((await v3(old.id)).text).toBe(`{"id":"${old.id}","status":"not_found"}`);
    } finally {
      dispatcher.child.kill('SIGTERM');
      const exit = await dispatcher.exited;
      expect({ ...exit, output: exit.code === 0 ? '' : dispatcher.output() }).toEqual({ code: 0, signal: null, output: '' });
    }
  });

  it('emits email.processed, email.delivered and email.bounced to a subscribed webhook, once per send', async () => {
    if (skip) return;
    receiver = await startReceiver({ status: 204 });
    const owner = await sut.createAccount('Events Inc');
    const webhook = await sut
      .http()
      .post('/v3/Webhook')
      .set('api-key', owner.apiKey)
      .send({ url: `${receiver.url}/hooks`, events: ['email.processed', 'email.delivered', 'email.bounced'] })
      .expect(201);
    const secret = webhook.body.secret as string;
    const create = async (channel: string) =>
      (await createSend({ accountId: owner.id, email: 'jane@example.com', channel }).expect(201)).body as { id: string; idSending: number };

    const ok = await create('api_v2');
    const ko = await create('smtp');
    const raced = await create('automation');
    const t0 = Date.now();
    const okDeliveredAt = secondsFromNow(50.123, t0);
    const koBouncedAt = secondsFromNow(60, t0);
    await report(ok.id, { status: 'sent' }).expect(202);
    await report(ok.id, { status: 'delivered', diagCode: '250 2.0.0 OK', at: okDeliveredAt }).expect(202);
    await report(ko.id, { status: 'bounced', bounceType: 'hard', at: koBouncedAt }).expect(202);
    const reports = [
      ...Array.from({ length: 10 }, (_, i) => ({ status: 'delivered', diagCode: `250 ${i}`, at: secondsFromNow(20 + i, t0) })),
      ...Array.from({ length: 10 }, (_, i) => ({ status: 'bounced', bounceType: 'soft', at: secondsFromNow(30 + i, t0) })),
    ];
    await Promise.all(reports.map((body) => report(raced.id, body).expect(202)));
    // a retried final report emits nothing more
    await report(ok.id, { status: 'delivered', diagCode: '250 2.0.0 OK', at: okDeliveredAt }).expect(202);
    await report(ok.id, { status: 'delivered', diagCode: '250 2.0.0 OK' }).expect(202);

    type Envelope = { id: string; type: string; created: number; apiVersion: string; account: { id: number; name: string }; data: Record<string, unknown> };
    const bodies = () => receiver!.requestsTo('/hooks').map((r) => JSON.parse(r.body) as Envelope);
    await eventually(() => expect(bodies()).toHaveLength(6), 15_000);
    await sleep(300);
    const events = bodies();
    expect(events).toHaveLength(6);
    for (const request of receiver.requestsTo('/hooks')) expect(isValid(request.rawBody, request.headers['x-service-signature'] as string, secret)).toBe(true);
    const of = (send: { id: string }, type: string) => events.filter((e) => e.id === sendEventId(send.id, type));

    for (const [send, sendingType] of [[ok, 2], [ko, 3], [raced, 4]] as const) {
      const [processed] = of(send, 'email.processed');
      expect(processed).toEqual({
        id: sendEventId(send.id, 'email.processed'),
        type: 'email.processed',
        created: expect.any(Number),
        apiVersion: 'v3',
        account: { id: owner.id, name: owner.name },
        data: { email: 'jane@example.com', idSending: send.idSending, sendingType, processedAt: expect.any(String) },
      });
    }
    expect(of(ok, 'email.delivered')).toEqual([
      expect.objectContaining({
        type: 'email.delivered',
        account: { id: owner.id, name: owner.name },
        data: { email: 'jane@example.com', idSending: ok.idSending, sendingType: 2, diagCode: '250 2.0.0 OK', deliveredAt: okDeliveredAt },
      }),
    ]);
    expect(of(ko, 'email.bounced')).toEqual([
      expect.objectContaining({
        type: 'email.bounced',
        data: { email: 'jane@example.com', idSending: ko.idSending, sendingType: 3, diagCode: null, bounceType: 'hard', bouncedAt: koBouncedAt },
      }),
    ]);
    const racedFinal = [...of(raced, 'email.delivered'), ...of(raced, 'email.bounced')];
    expect(racedFinal).toHaveLength(1);
    const racedStatus = (await v3(raced.id, owner.apiKey).expect(200)).body;
    expect(racedFinal[0].type).toBe(`email.${racedStatus.status}`);
    expect(racedFinal[0].data.diagCode).toBe(racedStatus.diagCode);
  });

  it('documents every route, the timing of delivered, and updatedAt', async () => {
    if (skip) return;
    const docs = (await sut.http().get('/docs/json').expect(200)).body;
    expect(Object.keys(docs.paths)).toEqual(
      expect.arrayContaining([
        '/internal/sends',
        '/internal/sends/{id}/events',
        '/internal/sends/events/batch',
        '/v3/Send/{id}/Status',
        '/v2/send/{id}/status.json',
        '/admin/maintenance/purge-send-status',
      ]),
    );
    const lookup = docs.paths['/v3/Send/{id}/Status'].get;
    expect(lookup.description).toMatch(/about 5 minutes after handover/);
    expect(lookup.description).toMatch(/email\.delivered/);
    expect(docs.components.schemas.SendStatusV3View.properties.updatedAt).toBeDefined();
    expect(docs.components.schemas.SendStatusV3View.properties.status.description).toMatch(/sent: handed over.*5 minutes/);
  });
});
