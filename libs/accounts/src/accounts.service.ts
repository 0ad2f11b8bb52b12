import { Injectable } from '@nestjs/common';
import { Clock, DomainError, newId, notFound } from '../../kernel/src';
import { Account } from './account';
import { AccountRepository, ApiKeyRepository } from './account.repository';
import { apiKeyHint, generateApiKey, hashApiKey } from './api-key';

export interface CreatedAccount {
  id: number;
  name: string;
  apiKey: string;
}

/**
 * How long an authenticated key is remembered in this process. Every /v3 and /v2 call checks
 * its key, so this takes a query off each of them; a revoked key stops working at once in the
 * process that revoked it and within this time in the others.
 */
export const API_KEY_CACHE_MS = 5000;
const API_KEY_CACHE_MAX = 10_000;

@Injectable()
export class AccountsService {
  private readonly authenticated = new Map<string, { account: Account; until: number }>();

  constructor(
    private readonly accounts: AccountRepository,
    private readonly apiKeys: ApiKeyRepository,
    private readonly clock: Clock,
  ) {}

  async createAccount(name: string): Promise<CreatedAccount> {
    const trimmed = name.trim();
    if (trimmed.length === 0 || trimmed.length > 200) {
      throw new DomainError('invalid_parameter', 'name must be 1 to 200 characters');
    }
    const account = await this.accounts.create(trimmed, this.clock.now());
    const { apiKey } = await this.createApiKey(account.id);
    return { id: account.id, name: account.name, apiKey };
  }

  async createApiKey(accountId: number): Promise<{ id: string; apiKey: string }> {
    if (!(await this.accounts.findById(accountId))) throw notFound(`account ${accountId} not found`);
    const apiKey = generateApiKey();
    const id = newId('key');
    await this.apiKeys.insert({ id, accountId, keyHash: hashApiKey(apiKey), hint: apiKeyHint(apiKey), createdAt: this.clock.now(), revokedAt: null });
    return { id, apiKey };
  }

  async revokeApiKey(accountId: number, keyId: string): Promise<void> {
    if (!(await this.apiKeys.revoke(accountId, keyId, this.clock.now()))) {
      throw notFound(`API key ${keyId} not found for account ${accountId}`);
    }
    this.authenticated.clear();
  }

  /** The account an API key opens, or null for a missing, unknown or revoked key. */
  async authenticate(apiKey: string | undefined): Promise<Account | null> {
    if (!apiKey || apiKey.length > 200) return null;
    const hash = hashApiKey(apiKey);
    const now = this.clock.nowMs();
    const cached = this.authenticated.get(hash);
    if (cached && cached.until > now) return cached.account;
    const account = await this.apiKeys.findActiveAccountByHash(hash);
    if (account) {
      if (this.authenticated.size >= API_KEY_CACHE_MAX) this.authenticated.clear();
      this.authenticated.set(hash, { account, until: now + API_KEY_CACHE_MS });
    } else {
      this.authenticated.delete(hash);
    }
    return account;
  }

  async getAccount(id: number): Promise<Account> {
    const account = await this.accounts.findById(id);
    if (!account) throw notFound(`account ${id} not found`);
    return account;
  }
}
