import { randomBytes } from 'node:crypto';
import { TypeormDatabase } from '../../libs/adapters/sql/src/typeorm-database';
import { verify } from '../../libs/signing/src';
import { createMysqlDatabase } from '../support/databases';
import { eventually } from '../support/eventually';
import { Receiver, startReceiver } from '../support/receiver';
import { profileAvailable, startTestApp, TestApp } from '../support/test-app';

/**
 * On a MariaDB database whose default character set is latin1, every character column is utf8mb4
 * after the migrations: an emoji in an event's data is stored, delivered and signed unchanged, and
 * a webhook description with one is kept (before: stored and signed as `?`, and a 500).
 */
describe('a latin1-default MariaDB database', () => {
  let sut: TestApp;
  let receiver: Receiver;
  let database: { url: string; name: string; drop(): Promise<void> };
  let skip = false;

  beforeAll(async () => {
    skip = !(await profileAvailable('mysql-nats'));
    if (skip) return;
    database = await createMysqlDatabase('wh_latin1', undefined, 'latin1 COLLATE latin1_swedish_ci');
    receiver = await startReceiver({ status: 200 });
    sut = await startTestApp('mysql-nats', { env: { DATABASE_URL: database.url } });
  });
  afterAll(async () => {
    if (skip) return;
    await sut.close();
    await receiver.close();
    await database.drop();
  });

  it('keeps emoji in event data and descriptions, byte for byte and signed as sent', async () => {
    if (skip) return;
    const narrow = await sut.app.get(TypeormDatabase).query<{ n: number | string }>(
      "SELECT COUNT(*) AS n FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND CHARACTER_SET_NAME IS NOT NULL AND CHARACTER_SET_NAME <> 'utf8mb4'",
    );
    expect(Number(narrow[0].n)).toBe(0);

    const { id: accountId, apiKey } = await sut.createAccount();
    const path = `/latin1/${randomBytes(4).toString('hex')}`;
    const created = await sut.http().post('/v3/Webhook').set('api-key', apiKey).send({ url: receiver.url + path, events: ['email.delivered'], description: 'Launches 🚀 and café' });
    expect(created.status).toBe(201);
    expect((await sut.http().get(`/v3/Webhook/${created.body.id}`).set('api-key', apiKey).expect(200)).body.description).toBe('Launches 🚀 and café');

    const data = { email: 'jane@example.com', idSending: 7, sendingType: 1, diagCode: '250 OK 😀 ñ', deliveredAt: '2025-11-22T02:00:00.000Z' };
    const published = await sut.http().post('/internal/events').set('authorization', `Bearer ${sut.tokens.internal}`).send({ accountId, type: 'email.delivered', data }).expect(202);
    const [request] = await eventually(() => {
      const received = receiver.requestsTo(path);
      expect(received).toHaveLength(1);
      return received;
    }, 15_000);
    expect(JSON.parse(request.body).data.diagCode).toBe('250 OK 😀 ñ');
    expect(() => verify(request.rawBody, String(request.headers['x-service-signature']), created.body.secret)).not.toThrow();
    const fed = await sut.http().get(`/v3/events/${published.body.id}`).set('api-key', apiKey).expect(200);
    expect(fed.body.data.diagCode).toBe('250 OK 😀 ñ');
  });
});
