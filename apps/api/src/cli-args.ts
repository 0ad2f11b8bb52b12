export type CliCommand =
  | { kind: 'usage'; error?: string }
  | { kind: 'account-create'; name: string }
  | { kind: 'key-create'; accountId: number }
  | { kind: 'key-revoke'; accountId: number; keyId: string };

export const USAGE = `usage:
  npm run cli -- account create --name <name>
  npm run cli -- api-key create --account <id>
  npm run cli -- api-key revoke --account <id> --key <keyId>
`;

export function parseCliArgs(argv: string[]): CliCommand {
  const [noun, verb, ...rest] = argv;
  const flags = new Map<string, string>();
  for (let i = 0; i < rest.length; i += 2) {
    if (!rest[i].startsWith('--') || rest[i + 1] === undefined) return { kind: 'usage', error: `unexpected argument ${rest[i]}` };
    flags.set(rest[i].slice(2), rest[i + 1]);
  }
  const accountId = Number(flags.get('account'));
  if (noun === 'account' && verb === 'create' && flags.get('name')) return { kind: 'account-create', name: flags.get('name')! };
  if (noun === 'api-key' && verb === 'create' && Number.isSafeInteger(accountId)) return { kind: 'key-create', accountId };
  if (noun === 'api-key' && verb === 'revoke' && Number.isSafeInteger(accountId) && flags.get('key')) {
    return { kind: 'key-revoke', accountId, keyId: flags.get('key')! };
  }
  return { kind: 'usage', error: argv.length ? `unknown command: ${argv.join(' ')}` : undefined };
}
