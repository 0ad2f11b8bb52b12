import { AccountRepository, ApiKeyRepository, hashApiKey } from '../../libs/accounts/src';
import { TypeormAccountRepository, TypeormApiKeyRepository } from '../../libs/adapters/typeorm/src/accounts/typeorm-account.repository';
import { openTestDatabase, TestDatabase } from '../support/databases';
import { serviceAvailable, TEST_MYSQL } from '../support/services';

const storages: Array<[string, () => Promise<TestDatabase | null>]> = [
  ['sqlite', () => openTestDatabase('sqlite')],
  ['mariadb', async () => ((await serviceAvailable('MariaDB', TEST_MYSQL.host, TEST_MYSQL.port)) ? openTestDatabase('mysql') : null)],
];

describe.each(storages)('account storage contract (%s)', (_name, open) => {
  let storage: TestDatabase | null;
  let accounts: AccountRepository;
  let keys: ApiKeyRepository;

  beforeAll(async () => {
    storage = await open();
    if (!storage) return;
    accounts = new TypeormAccountRepository(storage.db);
    keys = new TypeormApiKeyRepository(storage.db);
  });
  afterAll(async () => storage?.drop());

  it('runs every migration at open, and SQLite in WAL mode', async () => {
    if (!storage) return;
    const tables = storage.db.dialect === 'sqlite' ? "SELECT name FROM sqlite_master WHERE type = 'table'" : 'SHOW TABLES';
    const names = (await storage.db.query<Record<string, string>>(tables)).map((row) => Object.values(row)[0]);
    expect(names).toEqual(expect.arrayContaining(['accounts', 'api_keys', 'installation_settings', 'migrations']));
    if (storage.db.dialect === 'sqlite') {
      const [mode] = await storage.db.query<{ journal_mode: string }>('PRAGMA journal_mode');
      expect(mode.journal_mode).toBe('wal');
    }
  });

  it('gives accounts increasing integer ids and reads them back', async () => {
    if (!storage) return;
    const at = new Date('2026-01-02T03:04:05.678Z');
    const a = await accounts.create('Zoë & Co — "ünïcödé"', at);
    const b = await accounts.create('Beta', at);
    expect(Number.isInteger(a.id)).toBe(true);
    expect(b.id).toBeGreaterThan(a.id);
    expect(await accounts.findById(a.id)).toEqual({ id: a.id, name: 'Zoë & Co — "ünïcödé"', createdAt: at });
    expect(await accounts.findById(999_999)).toBeNull();
  });

  it('finds an account by the hash of an active key only', async () => {
    if (!storage) return;
    const account = await accounts.create('Keys', new Date());
    const hash = hashApiKey('sk_contract_' + account.id);
    await keys.insert({ id: `key_${account.id}`, accountId: account.id, keyHash: hash, hint: 'abcd', prefix: 'sk_contr', createdAt: new Date(), revokedAt: null, lastUsedAt: null });
    expect(await keys.findActiveByHash(hash)).toEqual({ keyId: `key_${account.id}`, account: expect.objectContaining({ id: account.id, name: 'Keys' }) });
    expect(await keys.findActiveByHash(hashApiKey('other'))).toBeNull();

    const other = await accounts.create('Other', new Date());
    expect(await keys.revoke(other.id, `key_${account.id}`, new Date())).toBe(false);
    expect(await keys.findActiveByHash(hash)).not.toBeNull();

    expect(await keys.revoke(account.id, `key_${account.id}`, new Date())).toBe(true);
    expect(await keys.findActiveByHash(hash)).toBeNull();
    expect(await keys.revoke(account.id, `key_${account.id}`, new Date())).toBe(true);
  });

  it('refuses a second key with the same hash', async () => {
    if (!storage) return;
    const account = await accounts.create('Dup', new Date());
    const hash = hashApiKey('sk_dup');
    await keys.insert({ id: 'key_dup1', accountId: account.id, keyHash: hash, hint: 'x', prefix: null, createdAt: new Date(), revokedAt: null, lastUsedAt: null });
    await expect(keys.insert({ id: 'key_dup2', accountId: account.id, keyHash: hash, hint: 'x', prefix: null, createdAt: new Date(), revokedAt: null, lastUsedAt: null })).rejects.toThrow();
  });

  it('keeps transactions atomic and isolated from concurrent statements', async () => {
    if (!storage) return;
    const db = storage.db;
    await expect(
      db.transaction(async () => {
        await accounts.create('Rolled back', new Date());
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    const rows = await db.query<{ n: number }>('SELECT COUNT(*) AS n FROM accounts WHERE name = ?', ['Rolled back']);
    expect(Number(rows[0].n)).toBe(0);

    // A statement issued while another flow holds a transaction must not join (and be rolled back with) it.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const tx = db
      .transaction(async () => {
        await accounts.create('Inside', new Date());
        await held;
        throw new Error('abort');
      })
      .catch(() => undefined);
    const outside = accounts.create('Outside', new Date());
    setTimeout(release, 50);
    await Promise.all([tx, outside]);
    const names = (await db.query<{ name: string }>("SELECT name FROM accounts WHERE name IN ('Inside', 'Outside')")).map((r) => r.name);
    expect(names).toEqual(['Outside']);
  });
});
