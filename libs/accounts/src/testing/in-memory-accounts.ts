import { Account, ActiveApiKey, ApiKeyRecord } from '../account';
import { AccountDeletion } from '../account-deletion';
import { AccountRepository, ApiKeyRepository } from '../account.repository';

export class InMemoryAccountRepository extends AccountRepository {
  readonly rows: Account[] = [];
  /** Accounts whose deletion started. */
  readonly deleting = new Set<number>();
  private lastId = 0;

  async create(name: string, createdAt: Date): Promise<Account> {
    const account = { id: ++this.lastId, name, createdAt };
    this.rows.push(account);
    return account;
  }
  async findById(id: number): Promise<Account | null> {
    return this.rows.find((a) => a.id === id && !this.deleting.has(a.id)) ?? null;
  }
  async list(afterId: number, limit: number): Promise<Account[]> {
    return this.rows.filter((a) => a.id > afterId && !this.deleting.has(a.id)).slice(0, limit);
  }
}

export class InMemoryApiKeyRepository extends ApiKeyRepository {
  readonly rows: ApiKeyRecord[] = [];
  /** Every recordUse call that wrote, for assertions. */
  readonly useWrites: Array<{ keyId: string; at: Date }> = [];

  constructor(private readonly accounts: InMemoryAccountRepository) {
    super();
  }
  async insert(key: ApiKeyRecord): Promise<void> {
    if (this.rows.some((k) => k.keyHash === key.keyHash)) throw new Error('duplicate key hash');
    this.rows.push({ ...key });
  }
  async findActiveByHash(keyHash: string): Promise<ActiveApiKey | null> {
    const key = this.rows.find((k) => k.keyHash === keyHash && !k.revokedAt);
    const account = key ? await this.accounts.findById(key.accountId) : null;
    return key && account ? { keyId: key.id, account } : null;
  }
  async revoke(accountId: number, keyId: string, at: Date): Promise<boolean> {
    const key = this.rows.find((k) => k.id === keyId && k.accountId === accountId && !k.revokedAt);
    if (!key) return false;
    key.revokedAt = at;
    return true;
  }
  async listActive(accountId: number): Promise<ApiKeyRecord[]> {
    return this.rows.filter((k) => k.accountId === accountId && !k.revokedAt).map((k) => ({ ...k }));
  }
  async recordUse(keyId: string, at: Date, unlessAfter: Date): Promise<void> {
    const key = this.rows.find((k) => k.id === keyId);
    if (!key || (key.lastUsedAt && key.lastUsedAt > unlessAfter)) return;
    key.lastUsedAt = at;
    this.useWrites.push({ keyId, at });
  }
}

/** Deletes the account's keys from the two fakes above; the account row goes when finished. */
export class InMemoryAccountDeletion extends AccountDeletion {
  private readonly deletedAt = new Map<number, number>();

  constructor(
    private readonly accounts: InMemoryAccountRepository,
    private readonly keys: InMemoryApiKeyRepository,
  ) {
    super();
  }
  async delete(accountId: number, at: Date): Promise<boolean> {
    if (!this.accounts.rows.some((a) => a.id === accountId) || this.accounts.deleting.has(accountId)) return false;
    this.accounts.deleting.add(accountId);
    this.deletedAt.set(accountId, at.getTime());
    this.deleteKeys(accountId);
    return true;
  }
  async finishDeletions(deletedBefore: Date): Promise<number> {
    const due = [...this.deletedAt].filter(([, at]) => at <= deletedBefore.getTime()).map(([id]) => id);
    for (const id of due) {
      this.deleteKeys(id);
      this.accounts.rows.splice(this.accounts.rows.findIndex((a) => a.id === id), 1);
      this.accounts.deleting.delete(id);
      this.deletedAt.delete(id);
    }
    return due.length;
  }
  private deleteKeys(accountId: number): void {
    for (let i = this.keys.rows.length - 1; i >= 0; i--) if (this.keys.rows[i].accountId === accountId) this.keys.rows.splice(i, 1);
  }
}
