import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verify } from '../../libs/signing/src/service-signature';
import { createMysqlDatabase } from '../support/databases';
import { deleteTestStream, uniqueNatsPrefix } from '../support/nats';
import { RunningProcess, startProcess, waitForOutput } from '../support/processes';
import { Receiver, startReceiver } from '../support/receiver';
import { PROFILES, Profile, profileAvailable } from '../support/test-app';
import { randomListenPort } from '../support/ports';

const ROOT = join(__dirname, '../..');
const ADMIN = `admin-${randomBytes(8).toString('hex')}`;
const INTERNAL = `internal-${randomBytes(8).toString('hex')}`;
const KEY_1 = randomBytes(32).toString('hex');
const KEY_2 = randomBytes(32).toString('base64');
const DELIVERED = { email: 'jane@example.com', idSending: 1, sendingType: 1, diagCode: '250 OK', deliveredAt: '2025-11-22T02:00:00.000Z' };

/** `npm run cli -- ...args` in its own process (node tools/cli.js, as npm runs it). */
function cli(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(ROOT, 'tools/cli.js'), ...args], { env: { PATH: process.env.PATH ?? '', ...env }, cwd: ROOT }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/**
 * CONTRACT 9.6, SECRETS_KEY as a key ring, on the built server: an installation that ran without
 * SECRETS_KEY keeps delivering once it is set (before, every delivery stopped: "unable to
 * authenticate data"); `secrets reseal` moves every secret to the first key and drops the
 * self-kept one; a server whose keys open no stored secret refuses to start, naming SECRETS_KEY.
 */
describe.each(PROFILES)('SECRETS_KEY key ring (%s)', (profile: Profile) => {
  let skip = false;
  let receiver: Receiver;
  let storage: Record<string, string>;
  let dropStorage: () => Promise<void>;
  let running: RunningProcess | null = null;

  beforeAll(async () => {
    skip = !(await profileAvailable(profile));
    if (skip) return;
    receiver = await startReceiver({ status: 200 });
    if (profile === 'sqlite') {
      const dir = mkdtempSync(join(tmpdir(), 'wh-keys-'));
      storage = { STORAGE: 'sqlite', SQLITE_PATH: join(dir, 'service.db'), QUEUE: 'database' };
      dropStorage = async () => rmSync(dir, { recursive: true, force: true });
    } else {
      const database = await createMysqlDatabase('wh_keys');
      const prefix = uniqueNatsPrefix();
      storage = { STORAGE: 'mysql', DATABASE_URL: database.url, QUEUE: 'nats', NATS_URL: 'nats://127.0.0.1:4222', NATS_PREFIX: prefix };
      dropStorage = async () => {
        await database.drop();
        await deleteTestStream(prefix);
      };
    }
  });
  afterAll(async () => {
    if (skip) return;
    await stop();
    await receiver.close();
    await dropStorage();
  });

  const port = String(randomListenPort());
  const base = `http://127.0.0.1:${port}`;
  const env = (secretsKey?: string) => ({
    ...storage,
    PORT: port,
    ADMIN_TOKEN: ADMIN,
    INTERNAL_TOKEN: INTERNAL,
    ALLOW_PRIVATE_TARGETS: 'true',
    LOG_LEVEL: 'info',
    ...(secretsKey === undefined ? {} : { SECRETS_KEY: secretsKey }),
  });

  async function start(secretsKey?: string): Promise<void> {
    running = startProcess('apps/api/src/main.js', env(secretsKey));
    await waitForOutput(running, /api listening/, 60_000);
  }
  async function stop(): Promise<void> {
    if (!running) return;
    running.child.kill('SIGTERM');
    await running.exited;
    running = null;
  }
  async function call(method: string, path: string, headers: Record<string, string>, body?: unknown) {
    const response = await fetch(base + path, { method, headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: response.status, body: (await response.json().catch(() => null)) as Record<string, unknown> };
  }
  /** Publishes one event and waits for its delivery; returns whether its signature verifies with `secret`. */
  async function deliveredAndSignedWith(accountId: number, path: string, secret: string): Promise<boolean> {
    const published = await call('POST', '/internal/events', { authorization: `Bearer ${INTERNAL}` }, { accountId, type: 'email.delivered', data: DELIVERED });
    expect(published.status).toBe(202);
    const deadline = Date.now() + 20_000;
    for (;;) {
      const request = receiver.requestsTo(path).find((r) => JSON.parse(r.body).id === published.body.id);
      if (request) {
        try {
          verify(request.body, String(request.headers['x-service-signature']), secret);
          return true;
        } catch {
          return false;
        }
      }
      if (Date.now() > deadline) throw new Error(`event ${String(published.body.id)} was not delivered within 20 s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('keeps delivering when SECRETS_KEY is set, reseals to its first key, and refuses keys that open nothing', async () => {
    if (skip) return;
    await start();
    const account = await call('POST', '/admin/accounts', { authorization: `Bearer ${ADMIN}` }, { name: 'Keys' });
    const path = `/keys/${randomBytes(4).toString('hex')}`;
    const webhook = await call('POST', '/v3/Webhook', { 'api-key': String(account.body.apiKey) }, { url: receiver.url + path, events: ['email.delivered'] });
    expect(webhook.status).toBe(201);
    const accountId = Number(account.body.id);
    expect(await deliveredAndSignedWith(accountId, path, String(webhook.body.secret))).toBe(true);
    // Two rotations: two rotated-out secrets still signing, kept sealed in one value; a target with a
    // signing key and a custom header (sealed too, but not one of the contract's secrets).
    const apiKey = { 'api-key': String(account.body.apiKey) };
    await call('POST', `/v3/Webhook/${String(webhook.body.id)}/rotate-secret`, apiKey);
    const secret = String((await call('POST', `/v3/Webhook/${String(webhook.body.id)}/rotate-secret`, apiKey)).body.secret);
    const target = await call('POST', '/v3/automations/webhook-targets', apiKey, { name: 'CRM', url: 'https://crm.example.com/in', headers: { Authorization: 'Bearer t0k3n' }, generateSigningKey: true });
    expect(target.status).toBe(201);
    await stop();

    // SECRETS_KEY set on an installation that ran without it: the self-kept key still opens the secret.
    await start(KEY_1);
    expect(await deliveredAndSignedWith(accountId, path, secret)).toBe(true);
    await stop();

    const withoutKey = await cli(env(), 'secrets', 'reseal');
    expect(withoutKey.code).toBe(1);
    expect(JSON.parse(withoutKey.stderr.replace(/^note: .*\n/gm, ''))).toEqual({ code: 'invalid_parameter', message: expect.stringContaining('SECRETS_KEY is not set') });
    const resealed = await cli(env(KEY_1), 'secrets', 'reseal');
    // the webhook's secret, its two rotated-out ones and the target's signing key: each secret counts once
    expect({ code: resealed.code, stdout: JSON.parse(resealed.stdout) }).toEqual({ code: 0, stdout: { resealed: 4 } });
    expect(JSON.parse((await cli(env(KEY_1), 'secrets', 'reseal')).stdout)).toEqual({ resealed: 0 });

    await start(KEY_1);
    expect(await deliveredAndSignedWith(accountId, path, secret)).toBe(true);
    await stop();

    // The self-kept key is gone: a ring without KEY_1 opens nothing, and the server will not start.
    const wrongKey = await cli(env(KEY_2), 'secrets', 'reseal');
    expect(wrongKey.code).toBe(1);
    expect(JSON.parse(wrongKey.stderr.replace(/^note: .*\n/m, ''))).toEqual({
      code: 'invalid_parameter',
      message: expect.stringContaining('SECRETS_KEY: 4 sealed value(s) (secrets, signing keys, custom headers) open with none of the keys'),
    });
    const refused = startProcess('apps/api/src/main.js', env(KEY_2));
    expect((await refused.exited).code).toBe(1);
    expect(refused.output()).toMatch(/start-up failed: SECRETS_KEY: 4 sealed value\(s\) \(secrets, signing keys, custom headers\) open with none of the keys/);
    // Without any key it is refused too, and makes no self-kept key on the way (one made now would
    // open nothing stored, and would stay in the database of an installation that uses SECRETS_KEY).
    for (let i = 0; i < 2; i++) {
      const keyless = startProcess('apps/api/src/main.js', env());
      expect((await keyless.exited).code).toBe(1);
      expect(keyless.output()).toMatch(/start-up failed: SECRETS_KEY: 4 sealed value\(s\) \(secrets, signing keys, custom headers\) open with none of the keys \(SECRETS_KEY\);/);
    }

    // The new key first, the old one after it: the old secrets still open, new ones take the new key.
    await start(`${KEY_2},${KEY_1}`);
    expect(await deliveredAndSignedWith(accountId, path, secret)).toBe(true);
    await stop();
  }, 240_000);
});
