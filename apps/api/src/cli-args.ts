import { parseArgs } from 'node:util';

/** One command of the operator CLI: its words, arguments, options and what it does. */
export interface CliCommand<Context> {
  /** The words naming it: `['account', 'create']`. */
  words: string[];
  summary: string;
  /** Positional arguments, all required, in order: `['ACCOUNT_ID', 'KEY_ID']`. */
  args?: string[];
  /** Required string options (`--name N` or `--name=N`). */
  options?: Record<string, { description: string }>;
  /** Prints nothing itself: returns the one JSON value the CLI prints on stdout. */
  run(context: Context, input: CliInput): Promise<unknown>;
}

export interface CliInput {
  args: string[];
  options: Record<string, string>;
}

export type ParsedCli<Context> =
  | { kind: 'help'; text: string }
  | { kind: 'usage-error'; text: string }
  | { kind: 'run'; command: CliCommand<Context>; input: CliInput };

const PROGRAM = 'npm run -s cli --';

/** Which command argv names and with what, or the usage to print (stdout for --help, stderr and exit 2 otherwise). */
export function parseCli<Context>(commands: readonly CliCommand<Context>[], argv: string[]): ParsedCli<Context> {
  const wantsHelp = argv.includes('--help') || argv.includes('-h');
  const command = [...commands].sort((a, b) => b.words.length - a.words.length).find((c) => c.words.every((word, i) => argv[i] === word));
  if (!command) {
    if (wantsHelp || argv.length === 0 || argv[0] === 'help') return { kind: wantsHelp || argv[0] === 'help' ? 'help' : 'usage-error', text: globalUsage(commands) };
    return { kind: 'usage-error', text: `unknown command: ${argv.join(' ')}\n\n${globalUsage(commands)}` };
  }
  if (wantsHelp) return { kind: 'help', text: commandUsage(command) };
  const options = Object.fromEntries(Object.keys(command.options ?? {}).map((name) => [name, { type: 'string' as const }]));
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv.slice(command.words.length), options, allowPositionals: true, strict: true });
  } catch (error) {
    return { kind: 'usage-error', text: `${error instanceof Error ? error.message : String(error)}\n\n${commandUsage(command)}` };
  }
  const expected = command.args ?? [];
  if (parsed.positionals.length !== expected.length) {
    const problem = parsed.positionals.length < expected.length ? `missing ${expected.slice(parsed.positionals.length).join(' ')}` : `unexpected argument ${parsed.positionals[expected.length]}`;
    return { kind: 'usage-error', text: `${problem}\n\n${commandUsage(command)}` };
  }
  const missing = Object.keys(command.options ?? {}).filter((name) => typeof parsed.values[name] !== 'string');
  if (missing.length > 0) return { kind: 'usage-error', text: `missing --${missing[0]}\n\n${commandUsage(command)}` };
  return { kind: 'run', command, input: { args: parsed.positionals, options: parsed.values as Record<string, string> } };
}

function synopsis<C>(command: CliCommand<C>): string {
  const options = Object.keys(command.options ?? {}).map((name) => `--${name} <${name}>`);
  return [...command.words, ...(command.args ?? []), ...options].join(' ');
}

export function globalUsage<C>(commands: readonly CliCommand<C>[]): string {
  const lines = commands.map((c) => `  ${synopsis(c).padEnd(42)} ${c.summary}`);
  return [
    `usage: ${PROGRAM} <command> [arguments]`,
    '',
    'commands:',
    ...lines,
    '',
    `Each command prints one JSON value on stdout. \`${PROGRAM} <command> --help\` describes one command.`,
    'Exit codes: 0 done, 1 refused (the error body {code, message} on stderr), 2 unknown command or missing argument.',
    'The CLI reads the same environment as the server (STORAGE, SQLITE_PATH, DATABASE_URL, ...).',
    '',
  ].join('\n');
}

export function commandUsage<C>(c: CliCommand<C>): string {
  const options = Object.entries(c.options ?? {}).map(([name, spec]) => `  --${name} <${name}>`.padEnd(24) + spec.description);
  return [`usage: ${PROGRAM} ${synopsis(c)}`, '', c.summary, ...(options.length ? ['', 'options:', ...options] : []), ''].join('\n');
}
