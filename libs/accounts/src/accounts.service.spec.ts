import { ManualClock } from '../../kernel/src/testing/kernel-fakes';
import { API_KEY_CACHE_MS, AccountsService } from './accounts.service';
import { hashApiKey } from './api-key';
import { KEY_USE_WRITE_INTERVAL_MS } from './key-use-recorder';
import { InMemoryAccountDeletion, InMemoryAccountRepository, InMemoryApiKeyRepository } from './testing/in-memory-accounts';

describe(AccountsService.name, () => {
  let accounts: InMemoryAccountRepository;
  let keys: InMemoryApiKeyRepository;
  let clock: ManualClock;
  let sut: AccountsService;
  const service = (c = clock) => new AccountsService(accounts, keys, new InMemoryAccountDeletion(accounts, keys), c);
  const flush = () => new Promise((resolve) => setImmediate(resolve));

  beforeEach(() => {
    accounts = new InMemoryAccountRepository();
    keys = new InMemoryApiKeyRepository(accounts);
    clock = new ManualClock();
    sut = service();
  });

  it('stores only the hash and prefix of a key, answers its id, and authenticates with the key itself', async () => {
    const created = await sut.createAccount(' Acme ');
    expect(created).toEqual({ id: expect.any(Number), name: 'Acme', apiKey: expect.stringMatching(/^sk_/), apiKeyId: keys.rows[0].id });
    expect(keys.rows[0].keyHash).toBe(hashApiKey(created.apiKey));
    expect(keys.rows[0].prefix).toBe(created.apiKey.slice(0, 8));
    expect(JSON.stringify(keys.rows)).not.toContain(created.apiKey);
    expect(await sut.authenticate(created.apiKey)).toMatchObject({ id: created.id, name: 'Acme' });
  });

  it('refuses unknown, empty, oversized and revoked keys', async () => {
    const created = await sut.createAccount('Acme');
    expect(await sut.authenticate(undefined)).toBeNull();
    expect(await sut.authenticate('')).toBeNull();
    expect(await sut.authenticate('sk_' + 'x'.repeat(500))).toBeNull();
    expect(await sut.authenticate(created.apiKey + 'x')).toBeNull();
    await sut.revokeApiKey(created.id, created.apiKeyId);
    expect(await sut.authenticate(created.apiKey)).toBeNull();
  });

  it('answers not_found for another account or a missing key', async () => {
    const a = await sut.createAccount('A');
    const b = await sut.createAccount('B');
    await expect(sut.revokeApiKey(b.id, a.apiKeyId)).rejects.toMatchObject({ code: 'not_found' });
    await expect(sut.createApiKey(999)).rejects.toMatchObject({ code: 'not_found' });
    await expect(sut.listApiKeys(999)).rejects.toMatchObject({ code: 'not_found' });
    await expect(sut.getAccount(999)).rejects.toMatchObject({ code: 'not_found' });
    await expect(sut.deleteAccount(999)).rejects.toMatchObject({ code: 'not_found' });
    expect(await sut.authenticate(a.apiKey)).toMatchObject({ id: a.id });
  });

  it('remembers a key briefly, forgets it on revocation here and after the cache time elsewhere', async () => {
    const other = service();
    const created = await sut.createAccount('Cached');
    expect(await sut.authenticate(created.apiKey)).not.toBeNull();
    expect(await other.authenticate(created.apiKey)).not.toBeNull();
    await sut.revokeApiKey(created.id, created.apiKeyId);
    expect(await sut.authenticate(created.apiKey)).toBeNull();
    expect(await other.authenticate(created.apiKey)).not.toBeNull();
    clock.advance(API_KEY_CACHE_MS);
    expect(await other.authenticate(created.apiKey)).toBeNull();
  });

  it('refuses an empty name', async () => {
    await expect(sut.createAccount('   ')).rejects.toMatchObject({ code: 'invalid_parameter' });
  });

  it('pages accounts oldest first with a cursor, and refuses bad limits and cursors', async () => {
    for (const name of ['A', 'B', 'C', 'D', 'E']) await sut.createAccount(name);
    const first = await sut.listAccounts({ limit: 2 });
    expect(first.accounts.map((a) => a.name)).toEqual(['A', 'B']);
    const second = await sut.listAccounts({ limit: 2, cursor: first.nextCursor! });
    expect(second.accounts.map((a) => a.name)).toEqual(['C', 'D']);
    const last = await sut.listAccounts({ limit: 2, cursor: second.nextCursor! });
    expect(last).toEqual({ accounts: [expect.objectContaining({ name: 'E' })], nextCursor: null });
    expect((await sut.listAccounts()).accounts).toHaveLength(5);
    for (const query of [{ limit: 0 }, { limit: 101 }, { limit: 1.5 }, { cursor: 'abc' }, { cursor: '-1' }]) {
      await expect(sut.listAccounts(query)).rejects.toMatchObject({ code: 'invalid_parameter' });
    }
  });

  it('lists the keys not revoked with their prefix and never the key', async () => {
    const created = await sut.createAccount('Keys');
    const second = await sut.createApiKey(created.id);
    await sut.revokeApiKey(created.id, created.apiKeyId);
    const listed = await sut.listApiKeys(created.id);
    expect(listed).toEqual([{ id: second.id, prefix: second.apiKey.slice(0, 8), createdAt: clock.now(), lastUsedAt: null }]);
    expect(JSON.stringify(listed)).not.toContain(second.apiKey);
  });

  it('records the last use of a key at most once a minute, cached or not', async () => {
    const created = await sut.createAccount('Used');
    const used = async () => {
      await sut.authenticate(created.apiKey);
      await flush();
    };
    await used();
    await used();
    clock.advance(API_KEY_CACHE_MS + 1);
    await used();
    expect(keys.useWrites).toHaveLength(1);
    expect((await sut.listApiKeys(created.id))[0].lastUsedAt).toEqual(new Date(clock.nowMs() - API_KEY_CACHE_MS - 1));
    clock.advance(KEY_USE_WRITE_INTERVAL_MS);
    await used();
    expect(keys.useWrites).toHaveLength(2);
    expect((await sut.listApiKeys(created.id))[0].lastUsedAt).toEqual(clock.now());
  });

  it('deletes an account: gone from reads and listings, its keys refused at once in this process', async () => {
    const kept = await sut.createAccount('Kept');
    const gone = await sut.createAccount('Gone');
    expect(await sut.authenticate(gone.apiKey)).not.toBeNull();
    await sut.deleteAccount(gone.id);
    expect(await sut.authenticate(gone.apiKey)).toBeNull();
    await expect(sut.getAccount(gone.id)).rejects.toMatchObject({ code: 'not_found' });
    await expect(sut.deleteAccount(gone.id)).rejects.toMatchObject({ code: 'not_found' });
    expect((await sut.listAccounts()).accounts.map((a) => a.id)).toEqual([kept.id]);
    expect(await sut.authenticate(kept.apiKey)).toMatchObject({ id: kept.id });
  });
});
