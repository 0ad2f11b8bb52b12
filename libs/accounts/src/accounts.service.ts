import { Injectable } from '@nestjs/common';
import { characterCount, Clock, DomainError, echoed, isWellFormedText, NOT_TEXT, invalidParameter, newId, notFound } from '../../kernel/src';
import { Account, AccountPage, ApiKeyView } from './account';
import { AccountDeletion } from './account-deletion';
import { AccountRepository, ApiKeyRepository } from './account.repository';
import { apiKeyHint, apiKeyPrefix, generateApiKey, hashApiKey } from './api-key';
import { KeyUseRecorder } from './key-use-recorder';

export interface CreatedAccount {
  id: number;
  name: string;
  apiKey: string;
  apiKeyId: string;
}

export interface AccountListQuery {
  limit?: number;
  cursor?: string;
}

/**
 * How long an authenticated key is remembered in this process. Every /v3 and /v2 call checks
 * its key, so this takes a query off each of them; a revoked key (or a deleted account) stops
 * working at once in the process that revoked it and within this time in the others.
 */
export const API_KEY_CACHE_MS = 5000;
const API_KEY_CACHE_MAX = 10_000;
export const DEFAULT_ACCOUNT_PAGE_SIZE = 50;
export const MAX_ACCOUNT_PAGE_SIZE = 100;

@Injectable()
export class AccountsService {
  private readonly authenticated = new Map<string, { account: Account; keyId: string; until: number }>();
  private readonly keyUses: KeyUseRecorder;

  constructor(
    private readonly accounts: AccountRepository,
    private readonly apiKeys: ApiKeyRepository,
    private readonly deletion: AccountDeletion,
    private readonly clock: Clock,
  ) {
    this.keyUses = new KeyUseRecorder(apiKeys);
  }

  async createAccount(name: string): Promise<CreatedAccount> {
    const trimmed = name.trim();
    if (trimmed.length === 0 || characterCount(trimmed) > 200) {
      throw new DomainError('invalid_parameter', 'name must be 1 to 200 characters');
    }
    if (!isWellFormedText(trimmed)) throw new DomainError('invalid_parameter', NOT_TEXT('name'));
    const account = await this.accounts.create(trimmed, this.clock.now());
    const { id, apiKey } = await this.createApiKey(account.id);
    return { id: account.id, name: account.name, apiKey, apiKeyId: id };
  }

  async getAccount(id: number): Promise<Account> {
    const account = await this.accounts.findById(id);
    if (!account) throw notFound(`account ${id} not found`);
    return account;
  }

  /** Oldest first; the cursor is the id of the last account of the previous page. */
  async listAccounts(query: AccountListQuery = {}): Promise<AccountPage> {
    const limit = query.limit ?? DEFAULT_ACCOUNT_PAGE_SIZE;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_ACCOUNT_PAGE_SIZE) {
      throw invalidParameter(`limit must be an integer from 1 to ${MAX_ACCOUNT_PAGE_SIZE}`);
    }
    if (query.cursor !== undefined && !/^\d{1,15}$/.test(query.cursor)) throw invalidParameter('cursor is not a cursor this list returned');
    const rows = await this.accounts.list(query.cursor === undefined ? 0 : Number(query.cursor), limit + 1);
    const accounts = rows.slice(0, limit);
    return { accounts, nextCursor: rows.length > limit ? String(accounts[accounts.length - 1].id) : null };
  }

  /** Deletes the account and everything it owns; its keys stop working here at once, elsewhere within API_KEY_CACHE_MS. */
  async deleteAccount(id: number): Promise<void> {
    if (!Number.isSafeInteger(id) || !(await this.deletion.delete(id, this.clock.now()))) throw notFound(`account ${id} not found`);
    this.authenticated.clear();
  }

  async createApiKey(accountId: number): Promise<{ id: string; apiKey: string }> {
    await this.getAccount(accountId);
    const apiKey = generateApiKey();
    const id = newId('key');
    await this.apiKeys.insert({
      id,
      accountId,
      keyHash: hashApiKey(apiKey),
      hint: apiKeyHint(apiKey),
      prefix: apiKeyPrefix(apiKey),
      createdAt: this.clock.now(),
      revokedAt: null,
      lastUsedAt: null,
    });
    return { id, apiKey };
  }

  /** The account's keys that are not revoked: never the key itself, only its first characters. */
  async listApiKeys(accountId: number): Promise<ApiKeyView[]> {
    await this.getAccount(accountId);
    const keys = await this.apiKeys.listActive(accountId);
    return keys.map(({ id, prefix, createdAt, lastUsedAt }) => ({ id, prefix, createdAt, lastUsedAt }));
  }

  async revokeApiKey(accountId: number, keyId: string): Promise<void> {
    if (!(await this.apiKeys.revoke(accountId, keyId, this.clock.now()))) {
      throw notFound(`API key ${echoed(keyId)} not found for account ${accountId}`);
    }
    this.authenticated.clear();
  }

  /** The account an API key opens, or null for a missing, unknown or revoked key. */
  async authenticate(apiKey: string | undefined): Promise<Account | null> {
    if (!apiKey || apiKey.length > 200) return null;
    const hash = hashApiKey(apiKey);
    const now = this.clock.nowMs();
    const cached = this.authenticated.get(hash);
    if (cached && cached.until > now) {
      this.keyUses.used(cached.keyId, now);
      return cached.account;
    }
    const found = await this.apiKeys.findActiveByHash(hash);
    if (!found) {
      this.authenticated.delete(hash);
      return null;
    }
    if (this.authenticated.size >= API_KEY_CACHE_MAX) this.authenticated.clear();
    this.authenticated.set(hash, { account: found.account, keyId: found.keyId, until: now + API_KEY_CACHE_MS });
    this.keyUses.used(found.keyId, now);
    return found.account;
  }
}
