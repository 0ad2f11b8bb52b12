import { SystemClock } from '../../kernel/src';
import { ApiKeyRecord } from './account';
import { ApiKeyRepository } from './account.repository';
import { InMemoryAccountRepository } from './testing/in-memory-accounts';
import { ManualClock } from '../../kernel/src/testing/kernel-fakes';
import { API_KEY_CACHE_MS, AccountsService } from './accounts.service';
import { hashApiKey } from './api-key';

class InMemoryKeys extends ApiKeyRepository {
  readonly rows: ApiKeyRecord[] = [];
  constructor(private readonly accounts: InMemoryAccountRepository) {
    super();
  }
  async insert(key: ApiKeyRecord) {
    this.rows.push(key);
  }
  async findActiveAccountByHash(keyHash: string) {
    const key = this.rows.find((k) => k.keyHash === keyHash && !k.revokedAt);
    return key ? this.accounts.findById(key.accountId) : null;
  }
  async revoke(accountId: number, keyId: string, at: Date) {
    const key = this.rows.find((k) => k.id === keyId && k.accountId === accountId);
    if (!key) return false;
    key.revokedAt ??= at;
    return true;
  }
}

describe(AccountsService.name, () => {
  let accounts: InMemoryAccountRepository;
  let keys: InMemoryKeys;
  let sut: AccountsService;

  beforeEach(() => {
    accounts = new InMemoryAccountRepository();
    keys = new InMemoryKeys(accounts);
    sut = new AccountsService(accounts, keys, new SystemClock());
  });

  it('stores only the hash of a key and authenticates with the key itself', async () => {
    const created = await sut.createAccount(' Acme ');
    expect(created.name).toBe('Acme');
    expect(keys.rows[0].keyHash).toBe(hashApiKey(created.apiKey));
    expect(JSON.stringify(keys.rows)).not.toContain(created.apiKey);
    expect(await sut.authenticate(created.apiKey)).toMatchObject({ id: created.id, name: 'Acme' });
  });

  it('refuses unknown, empty, oversized and revoked keys', async () => {
    const created = await sut.createAccount('Acme');
    expect(await sut.authenticate(undefined)).toBeNull();
    expect(await sut.authenticate('')).toBeNull();
    expect(await sut.authenticate('sk_' + 'x'.repeat(500))).toBeNull();
    expect(await sut.authenticate(created.apiKey + 'x')).toBeNull();
    await sut.revokeApiKey(created.id, keys.rows[0].id);
    expect(await sut.authenticate(created.apiKey)).toBeNull();
  });

  it('answers not_found for another account or a missing key', async () => {
    const a = await sut.createAccount('A');
    const b = await sut.createAccount('B');
    await expect(sut.revokeApiKey(b.id, keys.rows[0].id)).rejects.toMatchObject({ code: 'not_found' });
    await expect(sut.createApiKey(999)).rejects.toMatchObject({ code: 'not_found' });
    expect(await sut.authenticate(a.apiKey)).toMatchObject({ id: a.id });
  });

  it('remembers a key briefly, forgets it on revocation here and after the cache time elsewhere', async () => {
    const clock = new ManualClock();
    sut = new AccountsService(accounts, keys, clock);
    const other = new AccountsService(accounts, keys, clock);
    const created = await sut.createAccount('Cached');
    expect(await sut.authenticate(created.apiKey)).not.toBeNull();
    expect(await other.authenticate(created.apiKey)).not.toBeNull();
    await sut.revokeApiKey(created.id, keys.rows[0].id);
    expect(await sut.authenticate(created.apiKey)).toBeNull();
    expect(await other.authenticate(created.apiKey)).not.toBeNull();
    clock.advance(API_KEY_CACHE_MS);
    expect(await other.authenticate(created.apiKey)).toBeNull();
  });

  it('refuses an empty name', async () => {
    await expect(sut.createAccount('   ')).rejects.toMatchObject({ code: 'invalid_parameter' });
  });
});
