import 'reflect-metadata';
import { loadConfigOrExit } from '../../../config/load-config-or-exit';
import { DomainError } from '../../../libs/kernel/src';
import { parseCli } from './cli-args';
import { CLI_COMMANDS } from './cli-commands';
import { CliContext } from './cli-context';

/**
 * Operator command line (CONTRACT 9.5). Reads the same environment as the server, so it reaches
 * the same database: `npm run -s cli -- account create --name Acme`. One JSON value on stdout;
 * exit 1 with the contract's error body on stderr when refused, exit 2 with the usage on a bad call.
 */
async function main(argv: string[]): Promise<number> {
  const parsed = parseCli(CLI_COMMANDS, argv);
  if (parsed.kind === 'help') {
    process.stdout.write(parsed.text);
    return 0;
  }
  if (parsed.kind === 'usage-error') {
    process.stderr.write(parsed.text);
    return 2;
  }
  const context = await CliContext.open(loadConfigOrExit());
  try {
    process.stdout.write(`${JSON.stringify(await parsed.command.run(context, parsed.input))}\n`);
    return 0;
  } finally {
    await context.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const body =
      error instanceof DomainError
        ? { code: error.code, message: error.message }
        : { code: 'internal_error', message: error instanceof Error ? error.message : String(error) };
    process.stderr.write(`${JSON.stringify(body)}\n`);
    process.exit(1);
  },
);
