import { randomBytes } from 'node:crypto';
import { TypeormDatabase } from '../../libs/adapters/typeorm/src/typeorm-database';
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

  beforeAll(async () => {
    skip = !(await profileAvailable(profile));
    if (skip) return;
    receiver = await startReceiver({ status: 200 });
    sut = await startTestApp(profile, { env: { EVENT_RETENTION_DAYS: '30' } });
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

  it('purges events older than EVENT_RETENTION_DAYS with their deliveries and attempts, and old runs, and says how many', async () => {
    if (skip) return;
    const { id: accountId, apiKey } = await sut.createAccount();
    const path = `/ret/${randomBytes(4).toString('hex')}`;
    await sut.http().post('/v3/Webhook').set('api-key', apiKey).send({ url: receiver.url + path, events: ['email.delivered'] }).expect(201);
    const now = Math.floor(Date.now() / 1000);
    const publish = async (created: number) =>
      (await sut.http().post('/internal/events').set('authorization', `Bearer ${sut.tokens.internal}`).send({ accountId, type: 'email.delivered', data: DELIVERED, created }).expect(202)).body.id as string;
    const old = await publish(now - 31 * DAY_S);
    const young = await publish(now - 29 * DAY_S);
    await eventually(async () => expect([(await rowsOf(old)).attempts, (await rowsOf(young)).attempts]).toEqual([1, 1]));

    const created = await sut.http().post('/v3/automations/workflows').set('api-key', apiKey).send({ name: 'Wait', trigger: { type: 'incoming_webhook' }, steps: [{ type: 'delay', seconds: 86_400 }] }).expect(201);
    const activated = await sut.http().post(`/v3/automations/workflows/${created.body.id}/activate`).set('api-key', apiKey).expect(200);
    const hook = new URL(activated.body.triggerUrl).pathname;
    const oldRun = (await sut.http().post(hook).set('content-type', 'application/json').send('{"n":1}').expect(202)).body.runId as string;
    const youngRun = (await sut.http().post(hook).set('content-type', 'application/json').send('{"n":2}').expect(202)).body.runId as string;
    await db.exec('UPDATE automation_runs SET started_at = ? WHERE id = ?', [(now - 31 * DAY_S) * 1000, oldRun]);

    await sut.http().post('/admin/maintenance/purge').expect(401);
    const purged = await sut.http().post('/admin/maintenance/purge').set('authorization', `Bearer ${sut.tokens.admin}`).expect(200);
    expect(purged.body).toEqual({ sendStatus: 0, events: 1, runs: 1 });

    expect(await rowsOf(old)).toEqual({ events: 0, deliveries: 0, attempts: 0 });
    expect(await rowsOf(young)).toEqual({ events: 1, deliveries: 1, attempts: 1 });
    await sut.http().get(`/v3/events/${old}`).set('api-key', apiKey).expect(404);
    await sut.http().get(`/v3/events/${young}`).set('api-key', apiKey).expect(200);
    const runs = await sut.http().get(`/v3/automations/workflows/${created.body.id}/runs`).set('api-key', apiKey).expect(200);
    expect(runs.body.runs.map((run: { id: string }) => run.id)).toEqual([youngRun]);

    const again = await sut.http().post('/admin/maintenance/purge').set('authorization', `Bearer ${sut.tokens.admin}`).expect(200);
    expect(again.body).toEqual({ sendStatus: 0, events: 0, runs: 0 });
  });
});
