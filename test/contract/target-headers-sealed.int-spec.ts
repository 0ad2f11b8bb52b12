import { randomBytes } from 'node:crypto';
import { sealClearTargetHeaders, TypeormWebhookTargetRepository } from '../../libs/adapters/sql/src/automations/typeorm-webhook-target.repository';
import { openSecretBox, storedSecrets } from '../../libs/adapters/sql/src/secret-ring';
import { newId, SecretBox } from '../../libs/kernel/src';
import type { WebhookTarget } from '../../libs/webhook-targets/src';
import { openTestDatabase, TestDatabase } from '../support/databases';
import { profileAvailable } from '../support/test-app';

const TOKEN = 'Bearer sk_live_f00dfeedcafe';
/** Every value of this file's database is sealed with it, as one installation's are with its SECRETS_KEY. */
const KEY = randomBytes(32);

/** Custom header values at rest: sealed like signing keys, those of earlier releases sealed at start, re-sealed with the rest. */
describe.each(['sqlite', 'mysql'] as const)('webhook target headers at rest (%s)', (kind) => {
  let storage: TestDatabase | null = null;
  beforeAll(async () => {
    if (kind === 'sqlite' || (await profileAvailable('mysql-nats'))) storage = await openTestDatabase(kind);
  });
  afterAll(async () => {
    await storage?.drop();
  });

  let accountId = 500;
  const target = (headers: Record<string, string>): WebhookTarget => {
    const now = new Date();
    return { id: newId('tgt', now.getTime()), accountId: ++accountId, name: 'CRM', url: 'https://crm.example.com/in', headers, signingKeySealed: null, createdAt: now, updatedAt: now };
  };
  const storedRow = async (id: string) =>
    (await storage!.db.query<{ headers: string; headers_sealed: string | null }>('SELECT headers, headers_sealed FROM webhook_targets WHERE id = ?', [id]))[0];

  it('stores header values sealed, reads them back as written, and keeps no sealed value for a target without headers', async () => {
    if (!storage) return;
    const targets = new TypeormWebhookTargetRepository(storage.db, new SecretBox(KEY));
    const withHeaders = target({ Authorization: TOKEN, 'X-Tenant': 'é 1' });
    const without = target({});
    await targets.insert(withHeaders);
    await targets.insert(without);

    const row = await storedRow(withHeaders.id);
    expect(row.headers).toBe('{}');
    expect(row.headers_sealed).toMatch(/^v1:/);
    expect(JSON.stringify(row)).not.toContain('sk_live');
    expect((await targets.findById(withHeaders.accountId, withHeaders.id))!.headers).toEqual({ Authorization: TOKEN, 'X-Tenant': 'é 1' });
    expect(await storedRow(without.id)).toEqual({ headers: '{}', headers_sealed: null });

    await targets.update({ ...withHeaders, headers: { Authorization: 'Bearer rotated' } });
    expect((await targets.listByAccount(withHeaders.accountId, null, 10))[0].headers).toEqual({ Authorization: 'Bearer rotated' });
    await targets.update({ ...withHeaders, headers: {} });
    expect(await storedRow(withHeaders.id)).toEqual({ headers: '{}', headers_sealed: null });
  });

  it('seals the clear headers an earlier release stored when the SecretBox opens, and re-seals them with the other secrets', async () => {
    if (!storage) return;
    const legacy = target({});
    const oldKey = KEY;
    const targets = new TypeormWebhookTargetRepository(storage.db, new SecretBox(oldKey));
    await targets.insert(legacy);
    await storage.db.exec('UPDATE webhook_targets SET headers = ?, headers_sealed = NULL WHERE id = ?', [JSON.stringify({ Authorization: TOKEN }), legacy.id]);
    // as an earlier release read it: in clear
    expect((await targets.findById(legacy.accountId, legacy.id))!.headers).toEqual({ Authorization: TOKEN });

    const box = await openSecretBox(storage.db, [oldKey], Date.now());
    expect((await storedRow(legacy.id)).headers).toBe('{}');
    expect((await storedRow(legacy.id)).headers_sealed).toMatch(/^v1:/);
    expect((await new TypeormWebhookTargetRepository(storage.db, box).findById(legacy.accountId, legacy.id))!.headers).toEqual({ Authorization: TOKEN });
    expect(await sealClearTargetHeaders(storage.db, box)).toBe(0);

    // a new first key: reseal covers the headers, which then open with it alone
    const newKey = randomBytes(32);
    await storedSecrets(storage.db, new SecretBox([newKey, oldKey])).reseal();
    expect((await new TypeormWebhookTargetRepository(storage.db, new SecretBox(newKey)).findById(legacy.accountId, legacy.id))!.headers).toEqual({ Authorization: TOKEN });
  });
});
