import 'reflect-metadata';
import { AccountsService } from '../../../libs/accounts/src';
import { loadConfigOrExit } from '../../../config/load-config-or-exit';
import { openDatabase } from '../../../libs/adapters/typeorm/src/data-source.factory';
import { TypeormAccountRepository, TypeormApiKeyRepository } from '../../../libs/adapters/typeorm/src/accounts/typeorm-account.repository';
import { SystemClock } from '../../../libs/kernel/src';
import { parseCliArgs, USAGE } from './cli-args';

/**
 * Operator command line. Reads the same environment as the server, so it reaches the same
 * database: `npm run cli -- account create --name Acme`.
 */
async function main(argv: string[]): Promise<number> {
  const command = parseCliArgs(argv);
  if (command.kind === 'usage') {
    process.stderr.write(`${command.error ? `${command.error}\n` : ''}${USAGE}`);
    return command.error ? 2 : 0;
  }
  const config = loadConfigOrExit();
  const db = await openDatabase(config.storage);
  try {
    const accounts = new AccountsService(new TypeormAccountRepository(db), new TypeormApiKeyRepository(db), new SystemClock());
    switch (command.kind) {
      case 'account-create':
        print(await accounts.createAccount(command.name));
        return 0;
      case 'key-create':
        print(await accounts.createApiKey(command.accountId));
        return 0;
      case 'key-revoke':
        await accounts.revokeApiKey(command.accountId, command.keyId);
        return 0;
      default: {
        const exhaustive: never = command;
        return exhaustive;
      }
    }
  } finally {
    await db.dataSource.destroy();
  }
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
