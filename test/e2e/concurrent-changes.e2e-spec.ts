import { isValid, parseSignatureHeader } from '../../libs/signing/src';
import { eventually } from '../support/eventually';
import { deliveredData, profileSuite, TestAccount } from '../support/profile-suite';
import { PROFILES, Profile } from '../support/test-app';

/** Rounds of each race: without row locks MariaDB lost an update in most rounds, so a few catch it. */
const ROUNDS = 4;

/**
 * Changes of one resource sent at the same time (found by an outside probe on MariaDB, where a
 * change built on a plain read wrote back what another had just changed): every answer 200 stays
 * true afterwards, and of concurrent deletes exactly one succeeds.
 */
describe.each(PROFILES)('concurrent changes of one resource (%s)', (profile: Profile) => {
  const suite = profileSuite(profile, { env: { SECRET_ROTATION_GRACE: '1h' } });
  const api = (account: TestAccount) => ({
    get: (path: string) => suite.sut.http().get(path).set('api-key', account.apiKey),
    post: (path: string, body: object = {}) => suite.sut.http().post(path).set('api-key', account.apiKey).send(body),
    put: (path: string, body: object) => suite.sut.http().put(path).set('api-key', account.apiKey).send(body),
    delete: (path: string) => suite.sut.http().delete(path).set('api-key', account.apiKey),
  });
  const createWebhook = async (account: TestAccount, path: string) => {
    const created = await api(account).post('/v3/Webhook', { url: `${suite.receiver.url}${path}`, events: ['email.delivered'] }).expect(201);
    return { id: created.body.id as string, secret: created.body.secret as string };
  };

  it('keeps both fields of two partial webhook PUTs sent together', async () => {
    if (suite.skip) return;
    const account = await suite.sut.createAccount();
    for (let round = 0; round < ROUNDS; round++) {
      const { id } = await createWebhook(account, `/partial/${round}`);
      const answers = await Promise.all([
        api(account).put(`/v3/Webhook/${id}`, { description: `round ${round}` }),
        api(account).put(`/v3/Webhook/${id}`, { events: ['email.bounced', 'email.delivered'] }),
      ]);
      expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
      const stored = (await api(account).get(`/v3/Webhook/${id}`).expect(200)).body;
      expect({ round, description: stored.description, events: [...stored.events].sort() }).toEqual({ round, description: `round ${round}`, events: ['email.bounced', 'email.delivered'] });
    }
  });

  it('answers one of several concurrent deletes of a webhook 204 and the others 404', async () => {
    if (suite.skip) return;
    const account = await suite.sut.createAccount();
    for (let round = 0; round < ROUNDS; round++) {
      const { id } = await createWebhook(account, `/deleted/${round}`);
      const answers = await Promise.all(Array.from({ length: 6 }, () => api(account).delete(`/v3/Webhook/${id}`)));
      expect(answers.map((answer) => answer.status).sort()).toEqual([204, 404, 404, 404, 404, 404]);
    }
  });

  it('lets concurrent secret rotations take turns: every one answered 200 with a secret that signs', async () => {
    if (suite.skip) return;
    const account = await suite.sut.createAccount();
    const { id } = await createWebhook(account, '/rotated');
    const rotations = await Promise.all(Array.from({ length: 10 }, () => api(account).post(`/v3/Webhook/${id}/rotate-secret`)));
    expect(rotations.map((rotation) => rotation.status)).toEqual(Array(10).fill(200));
    const secrets = rotations.map((rotation) => rotation.body.secret as string);
    expect(new Set(secrets).size).toBe(10);
    await suite.internal('/internal/events', { accountId: account.id, type: 'email.delivered', data: deliveredData() }).expect(202);
    const [request] = await eventually(() => {
      const received = suite.receiver.requestsTo('/rotated');
      expect(received).toHaveLength(1);
      return received;
    });
    const { timestamp, signatures } = parseSignatureHeader(request.headers['x-service-signature'] as string);
    for (const secret of secrets) expect(signatures.some((signature) => isValid(request.rawBody, `t=${timestamp},v1=${signature}`, secret))).toBe(true);
  });

  it('tells a manual disable sent while failures are being counted with the counter it stopped at', async () => {
    if (suite.skip) return;
    const account = await suite.sut.createAccount();
    suite.receiver.respond((request) => (request.path.startsWith('/fail/') ? { status: 500 } : {}));
    for (let round = 0; round < ROUNDS; round++) {
      const failing = await createWebhook(account, `/fail/manual/${round}`);
      await api(account).post('/v3/Webhook', { url: `${suite.receiver.url}/watch/manual/${round}`, events: ['webhook.disabled'] }).expect(201);
      // fewer failures than disable the webhook by themselves: the disable is the user's
      for (let i = 0; i < 8; i++) await suite.internal('/internal/events', { accountId: account.id, type: 'email.delivered', data: deliveredData() }).expect(202);
      await eventually(() => expect(suite.receiver.requestsTo(`/fail/manual/${round}`).length).toBeGreaterThan(round % 4));
      await api(account).post(`/v3/Webhook/${failing.id}/disable`).expect(200);
      const [notice] = await eventually(() => {
        const received = suite.receiver.requestsTo(`/watch/manual/${round}`);
        expect(received).toHaveLength(1);
        return received;
      });
      const stored = (await api(account).get(`/v3/Webhook/${failing.id}`).expect(200)).body;
      expect({ round, told: JSON.parse(notice.body).data.consecutiveFailures }).toEqual({ round, told: stored.consecutiveFailures });
    }
    suite.receiver.respond({});
  });

  describe('workflows', () => {
    const definition = (name: string) => ({ name, trigger: { type: 'incoming_webhook' }, steps: [{ type: 'delay', seconds: 86_400 }] });
    const callTrigger = (triggerUrl: string) => suite.sut.http().post(new URL(triggerUrl).pathname).set('content-type', 'application/json').send('{}');

    it('keeps a deactivation sent with a PUT of the workflow: inactive, and its trigger URL 404', async () => {
      if (suite.skip) return;
      const account = await suite.sut.createAccount();
      for (let round = 0; round < ROUNDS; round++) {
        const { id } = (await api(account).post('/v3/automations/workflows', definition('before')).expect(201)).body;
        const { triggerUrl } = (await api(account).post(`/v3/automations/workflows/${id}/activate`).expect(200)).body;
        const answers = await Promise.all([
          api(account).post(`/v3/automations/workflows/${id}/deactivate`),
          api(account).put(`/v3/automations/workflows/${id}`, definition(`renamed ${round}`)),
        ]);
        expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
        const stored = (await api(account).get(`/v3/automations/workflows/${id}`).expect(200)).body;
        expect({ round, state: stored.state, name: stored.name }).toEqual({ round, state: 'inactive', name: `renamed ${round}` });
        expect((await callTrigger(triggerUrl)).status).toBe(404);
      }
    });

    it('keeps an activation sent with a PUT of the workflow: active, and the URL it returned answers 202', async () => {
      if (suite.skip) return;
      const account = await suite.sut.createAccount();
      for (let round = 0; round < ROUNDS; round++) {
        const { id } = (await api(account).post('/v3/automations/workflows', definition('before')).expect(201)).body;
        const [activated, renamed] = await Promise.all([
          api(account).post(`/v3/automations/workflows/${id}/activate`),
          api(account).put(`/v3/automations/workflows/${id}`, definition(`renamed ${round}`)),
        ]);
        expect([activated.status, renamed.status]).toEqual([200, 200]);
        const stored = (await api(account).get(`/v3/automations/workflows/${id}`).expect(200)).body;
        expect({ round, state: stored.state, name: stored.name }).toEqual({ round, state: 'active', name: `renamed ${round}` });
        expect((await callTrigger(activated.body.triggerUrl)).status).toBe(202);
      }
    });
  });

  it('keeps both changes of two webhook-target PUTs sent together: the header and the generated key', async () => {
    if (suite.skip) return;
    const account = await suite.sut.createAccount();
    for (let round = 0; round < ROUNDS; round++) {
      const url = `${suite.receiver.url}/target/${round}`;
      const { id } = (await api(account).post('/v3/automations/webhook-targets', { name: 'CRM', url }).expect(201)).body;
      const answers = await Promise.all([
        api(account).put(`/v3/automations/webhook-targets/${id}`, { name: 'CRM', url, headers: { 'X-Round': String(round) } }),
        api(account).put(`/v3/automations/webhook-targets/${id}`, { name: 'CRM', url, generateSigningKey: true }),
      ]);
      expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
      const stored = (await api(account).get(`/v3/automations/webhook-targets/${id}`).expect(200)).body;
      expect({ round, headers: stored.headers, signed: stored.signed }).toEqual({ round, headers: { 'X-Round': String(round) }, signed: true });
    }
  });
});
