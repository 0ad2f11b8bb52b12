import { TypeormDatabase } from '../../libs/adapters/sql/src/typeorm-database';
import { PROFILES, Profile, profileAvailable, startTestApp, TestApp } from '../support/test-app';

/**
 * The log of a run that provokes storage errors (a table gone under the server) holds no SQL, no
 * statement parameters and no secrets: issue "Reliability", item 6 (a 500 used to log the failing
 * statement with its parameters, sealed secrets and user data among them).
 */
describe.each(PROFILES)('log hygiene (%s)', (profile: Profile) => {
  let sut: TestApp;
  let skip = false;

  beforeAll(async () => {
    skip = !(await profileAvailable(profile));
    if (skip) return;
    sut = await startTestApp(profile);
  });
  afterAll(async () => {
    if (!skip) await sut.close();
  });

  it('logs a failing statement as its error alone: no SQL, no parameters, no secret', async () => {
    if (skip) return;
    const { apiKey } = await sut.createAccount();
    const created = await sut.http().post('/v3/Webhook').set('api-key', apiKey).send({ url: 'https://example.com/hook', events: ['email.delivered'], description: 'kept-description-41c7' }).expect(201);
    const db = sut.app.get(TypeormDatabase);
    const [{ sealed }] = await db.query<{ sealed: string }>('SELECT secret_sealed AS sealed FROM webhooks WHERE id = ?', [created.body.id]);
    await db.exec('DROP TABLE delivery_attempts');
    await db.exec('DROP TABLE deliveries');

    const failed = await sut.http().post(`/v3/Webhook/${created.body.id}/test`).set('api-key', apiKey).send({ type: 'email.delivered' });
    expect(failed.status).toBe(500);
    expect(failed.body).toEqual({ code: 'internal_error', message: expect.any(String) });
    const log = sut.logs.join('\n');
    expect(log).toMatch(/unhandled error/);
    for (const leak of ['INSERT INTO', 'SELECT ', created.body.secret, sealed, 'kept-description-41c7', apiKey]) expect(log).not.toContain(leak);
  });
});
