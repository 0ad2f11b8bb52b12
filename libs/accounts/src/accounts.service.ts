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

@Injectable()
export class AccountsService {
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
  }

  /** The account an API key opens, or null for a missing, unknown or revoked key. */
  async authenticate(apiKey: string | undefined): Promise<Account | null> {
    if (!apiKey || apiKey.length > 200) return null;
    return this.apiKeys.findActiveAccountByHash(hashApiKey(apiKey));
  }

  async getAccount(id: number): Promise<Account> {
    const account = await this.accounts.findById(id);
    if (!account) throw notFound(`account ${id} not found`);
    return account;
  }
}
