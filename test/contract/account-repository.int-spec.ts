import { AccountRepository, ApiKeyRepository, hashApiKey } from '../../libs/accounts/src';
import { InMemoryAccountRepository, InMemoryApiKeyRepository } from '../../libs/accounts/src/testing/in-memory-accounts';
import { TypeormAccountRepository, TypeormApiKeyRepository } from '../../libs/adapters/sql/src/accounts/typeorm-account.repository';
import { openTestDatabase, TestDatabase } from '../support/databases';
import { serviceAvailable, TEST_MYSQL } from '../support/services';

interface AccountPorts {
  accounts: AccountRepository;
  keys: ApiKeyRepository;
  /** The database behind the SQL adapters; null for the fakes. */
  storage: TestDatabase | null;
}

const sql = (storage: TestDatabase): AccountPorts => ({ accounts: new TypeormAccountRepository(storage.db), keys: new TypeormApiKeyRepository(storage.db), storage });

/** The account ports on the in-memory fakes and on the SQL adapters over SQLite and MariaDB. */
const backends: Array<[string, () => Promise<AccountPorts | null>]> = [
  [
    'in-memory fakes',
    async () => {
      const accounts = new InMemoryAccountRepository();
      return { accounts, keys: new InMemoryApiKeyRepository(accounts), storage: null };
    },
  ],
  ['sqlite', async () => sql(await openTestDatabase('sqlite'))],
  ['mariadb', async () => ((await serviceAvailable('MariaDB', TEST_MYSQL.host, TEST_MYSQL.port)) ? sql(await openTestDatabase('mysql')) : null)],
];

describe.each(backends)('account ports contract (%s)', (_name, open) => {
  let ports: AccountPorts | null;
  let storage: TestDatabase | null;
  let accounts: AccountRepository;
  let keys: ApiKeyRepository;

  beforeAll(async () => {
    ports = await open();
    if (!ports) return;
    ({ accounts, keys, storage } = ports);
  });
  afterAll(async () => storage?.drop());

  it('lists accounts after an id, oldest first, a page at a time', async () => {
    if (!ports) return;
    const made = [];
    for (const name of ['L1', 'L2', 'L3']) made.push(await accounts.create(name, new Date()));
    const page = await accounts.list(made[0].id, 2);
    expect(page.map((a) => a.name)).toEqual(['L2', 'L3']);
    expect(await accounts.list(made[2].id, 10)).toEqual([]);
  });

  it('lists the active keys of an account oldest first, and records a use at most once per window', async () => {
    if (!ports) return;
    const account = await accounts.create('Uses', new Date());
    const key = (n: number) => ({ id: `key_use${account.id}_${n}`, accountId: account.id, keyHash: hashApiKey(`sk_use_${account.id}_${n}`), hint: 'hint', prefix: 'sk_use__', createdAt: new Date(Date.UTC(2026, 0, n)), revokedAt: null, lastUsedAt: null });
    await keys.insert(key(1));
    await keys.insert(key(2));
    await keys.revoke(account.id, key(2).id, new Date());
    expect((await keys.listActive(account.id)).map((k) => k.id)).toEqual([key(1).id]);
    const t1 = new Date('2026-02-01T00:00:00.000Z');
    await keys.recordUse(key(1).id, t1, new Date(t1.getTime() - 60_000));
    // a use within the window of the recorded one is not written again
    await keys.recordUse(key(1).id, new Date(t1.getTime() + 30_000), new Date(t1.getTime() - 30_000));
    expect((await keys.listActive(account.id))[0].lastUsedAt).toEqual(t1);
    const t2 = new Date(t1.getTime() + 120_000);
    await keys.recordUse(key(1).id, t2, new Date(t2.getTime() - 60_000));
    expect((await keys.listActive(account.id))[0].lastUsedAt).toEqual(t2);
  });

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
    if (!ports) return;
    const at = new Date('2026-01-02T03:04:05.678Z');
    const a = await accounts.create('Zoë & Co — "ünïcödé"', at);
    const b = await accounts.create('Beta', at);
    expect(Number.isInteger(a.id)).toBe(true);
    expect(b.id).toBeGreaterThan(a.id);
    expect(await accounts.findById(a.id)).toEqual({ id: a.id, name: 'Zoë & Co — "ünïcödé"', createdAt: at });
    expect(await accounts.findById(999_999)).toBeNull();
  });

  it('finds an account by the hash of an active key only', async () => {
    if (!ports) return;
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
    // A revoked key is gone, as from the key list: revoking it again finds nothing.
    expect(await keys.revoke(account.id, `key_${account.id}`, new Date())).toBe(false);
  });

  it('refuses a second key with the same hash', async () => {
    if (!ports) return;
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
