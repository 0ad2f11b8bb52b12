import { Account, AccountPage, ApiKeyView as ApiKey } from '../../../../libs/accounts/src';
import { AccountPageView, AccountView, ApiKeyListView } from './admin.dto';

/** Domain views to the operator routes' JSON (and the CLI's: both print the same shapes). */
export const accountView = (account: Account): AccountView => ({ id: account.id, name: account.name, createdAt: account.createdAt.toISOString() });

export const accountPageView = (page: AccountPage): AccountPageView => ({ accounts: page.accounts.map(accountView), nextCursor: page.nextCursor });

export const apiKeyListView = (keys: ApiKey[]): ApiKeyListView => ({
  apiKeys: keys.map((key) => ({ id: key.id, prefix: key.prefix, createdAt: key.createdAt.toISOString(), lastUsedAt: key.lastUsedAt?.toISOString() ?? null })),
});
