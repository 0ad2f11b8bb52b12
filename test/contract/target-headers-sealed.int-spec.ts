import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { HEADERS_SEALED_SETTING, sealClearTargetHeaders, TypeormWebhookTargetRepository } from '../../libs/adapters/sql/src/automations/typeorm-webhook-target.repository';
import { storedSecrets } from '../../libs/adapters/sql/src/secret-ring';
import { newId, SecretBox } from '../../libs/kernel/src';
import type { WebhookTarget } from '../../libs/webhook-targets/src';
import { openTestDatabase, TestDatabase } from '../support/databases';
import { profileAvailable } from '../support/test-app';

const TOKEN = 'Bearer sk_live_f00dfeedcafe';
/** Every value of this file's database is sealed with it, as one installation's are with its SECRETS_KEY. */
const KEY = randomBytes(32);

/** Custom header values at rest: sealed like signing keys on a new installation; on an upgraded one, once `secrets reseal` ran. */
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

  it('on a new installation: stores header values sealed, reads them back as written, keeps no sealed value for a target without headers', async () => {
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

  it('on an upgraded installation: writes in clear (earlier processes still read them) until secrets reseal seals them all', async () => {
    if (!storage) return;
    const box = new SecretBox(KEY);
    const unmark = () => storage!.db.exec('DELETE FROM installation_settings WHERE name = ?', [HEADERS_SEALED_SETTING]);
    await unmark();
    const targets = new TypeormWebhookTargetRepository(storage.db, box);
    const legacy = target({ Authorization: TOKEN });
    await targets.insert(legacy);
    expect(await storedRow(legacy.id)).toEqual({ headers: JSON.stringify({ Authorization: TOKEN }), headers_sealed: null });
    expect((await targets.findById(legacy.accountId, legacy.id))!.headers).toEqual({ Authorization: TOKEN });

    expect(await sealClearTargetHeaders(storage.db, box, Date.now())).toBeGreaterThanOrEqual(1);
    expect((await storedRow(legacy.id)).headers).toBe('{}');
    expect((await storedRow(legacy.id)).headers_sealed).toMatch(/^v1:/);
    expect((await targets.findById(legacy.accountId, legacy.id))!.headers).toEqual({ Authorization: TOKEN });
    // marked: this process (and every other) writes sealed from now on
    await targets.update({ ...legacy, headers: { Authorization: 'Bearer new' } });
    expect((await storedRow(legacy.id)).headers).toBe('{}');
    expect((await targets.findById(legacy.accountId, legacy.id))!.headers).toEqual({ Authorization: 'Bearer new' });

    // a process of the earlier release edits it (in clear): its value wins, and the next reseal seals it
    await storage.db.exec('UPDATE webhook_targets SET headers = ? WHERE id = ?', [JSON.stringify({ Authorization: 'Bearer edited by the old release' }), legacy.id]);
    expect((await targets.findById(legacy.accountId, legacy.id))!.headers).toEqual({ Authorization: 'Bearer edited by the old release' });
    expect(await sealClearTargetHeaders(storage.db, box, Date.now())).toBe(1);
    expect(JSON.stringify(await storedRow(legacy.id))).not.toContain('edited');
    if (kind === 'sqlite') {
      // nor any copy of it in the file or its WAL (zeroed, not merely unlinked)
      const path = storage.storage.sqlitePath;
      const bytes = [path, `${path}-wal`].filter((file) => existsSync(file)).map((file) => readFileSync(file).toString('latin1'));
      expect(bytes.filter((content) => content.includes('edited by the old release'))).toEqual([]);
    }
    expect((await targets.findById(legacy.accountId, legacy.id))!.headers).toEqual({ Authorization: 'Bearer edited by the old release' });
    expect(await sealClearTargetHeaders(storage.db, box, Date.now())).toBe(0);

    // re-sealed with a new first key like every secret
    const newKey = randomBytes(32);
    await storedSecrets(storage.db, new SecretBox([newKey, KEY])).reseal();
    const underNewKey = new TypeormWebhookTargetRepository(storage.db, new SecretBox(newKey));
    expect((await underNewKey.findById(legacy.accountId, legacy.id))!.headers).toEqual({ Authorization: 'Bearer edited by the old release' });

    // an earlier release removes them and moves the target (it writes headers '{}' and updated_at, and
    // leaves the sealed value): the removed credential never comes back, nor goes to the new URL
    await storage.db.exec('UPDATE webhook_targets SET headers = ?, url = ?, updated_at = ? WHERE id = ?', ['{}', 'https://elsewhere.example.com/in', Date.now() + 60_000, legacy.id]);
    expect(await underNewKey.findById(legacy.accountId, legacy.id)).toMatchObject({ url: 'https://elsewhere.example.com/in', headers: {} });
  });

  it('marks a database no process migrated before, and only that one', async () => {
    if (!storage) return;
    const marked = async (db: TestDatabase['db']) => (await db.query('SELECT 1 FROM installation_settings WHERE name = ?', [HEADERS_SEALED_SETTING])).length === 1;
    const fresh = await openTestDatabase(kind);
    try {
      expect(await marked(fresh.db)).toBe(true);
      // an upgraded database: migrated before this release (the mark absent), opened again
      await fresh.db.exec('DELETE FROM installation_settings WHERE name = ?', [HEADERS_SEALED_SETTING]);
      const reopened = await fresh.connect();
      expect(await marked(reopened)).toBe(false);
    } finally {
      await fresh.drop();
    }
  });
});
