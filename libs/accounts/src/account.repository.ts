import { Account, ActiveApiKey, ApiKeyRecord } from './account';

export abstract class AccountRepository {
  abstract create(name: string, createdAt: Date): Promise<Account>;
  /** An account that exists and is not being deleted. */
  abstract findById(id: number): Promise<Account | null>;
  /** Accounts (not being deleted) with ids above `afterId`, oldest (lowest id) first. */
  abstract list(afterId: number, limit: number): Promise<Account[]>;
}

export abstract class ApiKeyRepository {
  abstract insert(key: ApiKeyRecord): Promise<void>;
  /** A key that exists and is not revoked, of an account not being deleted, by the key's hash. */
  abstract findActiveByHash(keyHash: string): Promise<ActiveApiKey | null>;
  /** Marks a key revoked; false when the account has no such key or it is revoked already. */
  abstract revoke(accountId: number, keyId: string, at: Date): Promise<boolean>;
  /** The account's keys that are not revoked, oldest first. */
  abstract listActive(accountId: number): Promise<ApiKeyRecord[]>;
  /** Sets last use to `at` unless a use after `unlessAfter` is already recorded (one write per key and minute, across processes). */
  abstract recordUse(keyId: string, at: Date, unlessAfter: Date): Promise<void>;
}
