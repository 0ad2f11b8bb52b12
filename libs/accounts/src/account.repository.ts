import { Account, ApiKeyRecord } from './account';

export abstract class AccountRepository {
  abstract create(name: string, createdAt: Date): Promise<Account>;
  abstract findById(id: number): Promise<Account | null>;
}

export abstract class ApiKeyRepository {
  abstract insert(key: ApiKeyRecord): Promise<void>;
  /** The account of a key that exists and is not revoked, by the key's hash. */
  abstract findActiveAccountByHash(keyHash: string): Promise<Account | null>;
  /** Marks a key revoked; false when the account has no such key. */
  abstract revoke(accountId: number, keyId: string, at: Date): Promise<boolean>;
}
