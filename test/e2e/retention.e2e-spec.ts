import { randomBytes } from 'node:crypto';
import { TypeormDatabase } from '../../libs/adapters/sql/src/typeorm-database';
import { eventually } from '../support/eventually';
import { Receiver, startReceiver } from '../support/receiver';
import { PROFILES, Profile, profileAvailable, startTestApp, TestApp } from '../support/test-app';

const DAY_S = 86_400;
const DELIVERED = { email: 'jane@example.com', idSending: 1, sendingType: 1, diagCode: '250 OK', deliveredAt: '2025-11-22T02:00:00.000Z' };

/** CONTRACT 9.6: EVENT_RETENTION_DAYS for events (with deliveries and attempts) and runs, POST /admin/maintenance/purge. */
describe.each(PROFILES)('retention (%s)', (profile: Profile) => {
  let sut: TestApp;
  let receiver: Receiver;
  let db: TypeormDatabase;
  let skip = false;
  let down = true;

  beforeAll(async () => {
    skip = !(await profileAvailable(profile));
    if (skip) return;
    // Paths under /down answer 503 while `down` is set: their deliveries wait for a retry.
    receiver = await startReceiver((request) => ({ status: down && request.path.startsWith('/down') ? 503 : 200 }));
    // The first retry 5 s after a failure (then an hour): long enough to purge while it waits.
    sut = await startTestApp(profile, { env: { EVENT_RETENTION_DAYS: '30', DELIVERY_RETRY_SCHEDULE: '5s,1h' } });
    db = sut.app.get(TypeormDatabase);
  });
  afterAll(async () => {
    if (skip) return;
    await sut.close();
    await receiver.close();
  });

  const count = async (sql: string, params: unknown[]) => Number((await db.query<{ n: number | string }>(`SELECT COUNT(*) AS n FROM ${sql}`, params))[0].n);
  const rowsOf = async (eventId: string) => ({
    events: await count('events WHERE id = ?', [eventId]),
    deliveries: await count('deliveries WHERE event_id = ?', [eventId]),
    attempts: await count('delivery_attempts WHERE delivery_id IN (SELECT id FROM deliveries WHERE event_id = ?)', [eventId]),
  });
  const statusOf = async (eventId: string) => (await db.query<{ status: string }>('SELECT status FROM deliveries WHERE event_id = ?', [eventId])).map((row) => row.status);
  const purge = async () => (await sut.http().post('/admin/maintenance/purge').set('authorization', `Bearer ${sut.tokens.admin}`).expect(200)).body;

  it('purges events older than EVENT_RETENTION_DAYS with their deliveries and attempts, and old finished runs, and says how many', async () => {
    if (skip) return;
    const { id: accountId, apiKey } = await sut.createAccount();
    const path = `/ret/${randomBytes(4).toString('hex')}`;
    await sut.http().post('/v3/Webhook').set('api-key', apiKey).send({ url: receiver.url + path, events: ['email.delivered'] }).expect(201);
    const now = Math.floor(Date.now() / 1000);
    const publish = async (account: number, created: number) =>
      (await sut.http().post('/internal/events').set('authorization', `Bearer ${sut.tokens.internal}`).send({ accountId: account, type: 'email.delivered', data: DELIVERED, created }).expect(202)).body.id as string;
    const old = await publish(accountId, now - 31 * DAY_S);
    const young = await publish(accountId, now - 29 * DAY_S);
    await eventually(async () => expect([(await rowsOf(old)).attempts, (await rowsOf(young)).attempts]).toEqual([1, 1]));

    const wait = await sut.http().post('/v3/automations/workflows').set('api-key', apiKey).send({ name: 'Wait', trigger: { type: 'incoming_webhook' }, steps: [{ type: 'delay', seconds: 86_400 }] }).expect(201);
    const waitHook = new URL((await sut.http().post(`/v3/automations/workflows/${wait.body.id}/activate`).set('api-key', apiKey).expect(200)).body.triggerUrl).pathname;
    const quick = await sut.http().post('/v3/automations/workflows').set('api-key', apiKey).send({ name: 'Quick', trigger: { type: 'incoming_webhook' }, steps: [{ type: 'delay', seconds: 1 }] }).expect(201);
    const quickHook = new URL((await sut.http().post(`/v3/automations/workflows/${quick.body.id}/activate`).set('api-key', apiKey).expect(200)).body.triggerUrl).pathname;
    const trigger = async (hook: string, n: number) => (await sut.http().post(hook).set('content-type', 'application/json').send(`{"n":${n}}`).expect(202)).body.runId as string;
    const oldRun = await trigger(quickHook, 1);
    const youngRun = await trigger(quickHook, 2);
    const oldWaitingRun = await trigger(waitHook, 3);
    const runsOf = async (workflowId: string) => (await sut.http().get(`/v3/automations/workflows/${workflowId}/runs`).set('api-key', apiKey).expect(200)).body.runs as Array<{ id: string; status: string }>;
    await eventually(async () => expect((await runsOf(quick.body.id)).map((run) => run.status)).toEqual(['succeeded', 'succeeded']), 10_000);
    for (const run of [oldRun, oldWaitingRun]) await db.exec('UPDATE automation_runs SET started_at = ? WHERE id = ?', [(now - 31 * DAY_S) * 1000, run]);

    // An old event whose delivery still waits for a retry (5 s after the first failure) is owed it:
    // kept until the delivery settles.
    const other = await sut.createAccount();
    await sut.http().post('/v3/Webhook').set('api-key', other.apiKey).send({ url: `${receiver.url}/down/${randomBytes(4).toString('hex')}`, events: ['email.delivered'] }).expect(201);
    const owed = await publish(other.id, now - 40 * DAY_S);
    await eventually(async () => expect(await statusOf(owed)).toEqual(['retrying']));

    await sut.http().post('/admin/maintenance/purge').expect(401);
    expect(await purge()).toEqual({ sendStatus: 0, events: 1, runs: 1 });

    expect(await rowsOf(old)).toEqual({ events: 0, deliveries: 0, attempts: 0 });
    expect(await rowsOf(young)).toEqual({ events: 1, deliveries: 1, attempts: 1 });
    expect(await rowsOf(owed)).toEqual({ events: 1, deliveries: 1, attempts: 1 });
    await sut.http().get(`/v3/events/${old}`).set('api-key', apiKey).expect(404);
    await sut.http().get(`/v3/events/${young}`).set('api-key', apiKey).expect(200);
    expect((await runsOf(quick.body.id)).map((run) => run.id)).toEqual([youngRun]);
    expect((await runsOf(wait.body.id)).map((run) => run.id)).toEqual([oldWaitingRun]);

    // The retry succeeds: the delivery settled, the next purge takes the event with it.
    down = false;
    await eventually(async () => expect(await statusOf(owed)).toEqual(['succeeded']), 15_000);
    expect(await purge()).toEqual({ sendStatus: 0, events: 1, runs: 0 });
    expect(await rowsOf(owed)).toEqual({ events: 0, deliveries: 0, attempts: 0 });
    expect(await purge()).toEqual({ sendStatus: 0, events: 0, runs: 0 });
  }, 60_000);
});
