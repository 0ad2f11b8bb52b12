import { DomainError } from '../../../libs/kernel/src';
import { accountPageView, accountView, apiKeyListView } from './admin/admin-accounts.presenter';
import { parseAccountId } from '../../../libs/accounts/src';
import { CliCommand } from './cli-args';
import type { CliContext } from './cli-context';

/** Every command of the operator CLI (CONTRACT 9.5): adding one is one entry here. */
export const CLI_COMMANDS: CliCommand<CliContext>[] = [
  {
    words: ['account', 'create'],
    summary: 'Create an account and its first API key (the key is shown once): {"id","name","apiKey","apiKeyId"}',
    options: { name: { description: 'the account name (1 to 200 characters)' } },
    run: (ctx, { options }) => ctx.accounts.createAccount(options.name),
  },
  {
    words: ['account', 'list'],
    summary: 'Every account, oldest first: {"accounts":[{"id","name","createdAt"}]}',
    async run(ctx) {
      const accounts = [];
      let cursor: string | undefined;
      do {
        const page = accountPageView(await ctx.accounts.listAccounts({ limit: 100, cursor }));
        accounts.push(...page.accounts);
        cursor = page.nextCursor ?? undefined;
      } while (cursor !== undefined);
      return { accounts };
    },
  },
  {
    words: ['account', 'show'],
    summary: 'One account: {"id","name","createdAt"}',
    args: ['ACCOUNT_ID'],
    run: async (ctx, { args }) => accountView(await ctx.accounts.getAccount(parseAccountId(args[0]))),
  },
  {
    words: ['account', 'delete'],
    summary: 'Delete an account and everything it owns, cancelling its waiting work: {"deleted":ID}',
    args: ['ACCOUNT_ID'],
    async run(ctx, { args }) {
      const id = parseAccountId(args[0]);
      await ctx.accounts.deleteAccount(id);
      return { deleted: id };
    },
  },
  {
    words: ['key', 'create'],
    summary: 'Create another API key for an account (shown once): {"id","apiKey"}',
    args: ['ACCOUNT_ID'],
    run: (ctx, { args }) => ctx.accounts.createApiKey(parseAccountId(args[0])),
  },
  {
    words: ['key', 'list'],
    summary: 'The API keys of an account that are not revoked: {"apiKeys":[{"id","prefix","createdAt","lastUsedAt"}]}',
    args: ['ACCOUNT_ID'],
    run: async (ctx, { args }) => apiKeyListView(await ctx.accounts.listApiKeys(parseAccountId(args[0]))),
  },
  {
    words: ['key', 'revoke'],
    summary: 'Revoke an API key: {"revoked":"KEY_ID"}',
    args: ['ACCOUNT_ID', 'KEY_ID'],
    async run(ctx, { args }) {
      await ctx.accounts.revokeApiKey(parseAccountId(args[0]), args[1]);
      return { revoked: args[1] };
    },
  },
  {
    words: ['secrets', 'reseal'],
    summary: 'Seal every stored secret again with the first key of SECRETS_KEY, then delete the key the server kept for itself: {"resealed":n}',
    async run(ctx) {
      // Without SECRETS_KEY the first key is the self-kept one, which resealing would then delete.
      if (ctx.config.secrets.keys.length === 0) throw new DomainError('invalid_parameter', 'SECRETS_KEY is not set: put the new key first in SECRETS_KEY, then reseal');
      return { resealed: await ctx.resealSecrets() };
    },
  },
  {
    words: ['purge'],
    summary: 'Run every retention purge now (as POST /admin/maintenance/purge): {"sendStatus":n,"events":n,"runs":n}',
    run: (ctx) => ctx.purgeAll(),
  },
];
