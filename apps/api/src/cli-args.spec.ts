import { CliCommand, parseCli } from './cli-args';

const ran: string[] = [];
const COMMANDS: CliCommand<null>[] = [
  { words: ['account', 'create'], summary: 'create', options: { name: { description: 'the name' } }, run: async () => ran.push('create') },
  { words: ['key', 'revoke'], summary: 'revoke', args: ['ACCOUNT_ID', 'KEY_ID'], run: async () => ran.push('revoke') },
  { words: ['purge'], summary: 'purge', run: async () => ran.push('purge') },
];

describe(parseCli.name, () => {
  it('finds the command and its arguments, with --name N and --name=N alike', () => {
    expect(parseCli(COMMANDS, ['account', 'create', '--name', 'Acme Inc'])).toMatchObject({ kind: 'run', command: COMMANDS[0], input: { args: [], options: { name: 'Acme Inc' } } });
    expect(parseCli(COMMANDS, ['account', 'create', '--name=Acme'])).toMatchObject({ kind: 'run', input: { options: { name: 'Acme' } } });
    expect(parseCli(COMMANDS, ['key', 'revoke', '7', 'key_x'])).toMatchObject({ kind: 'run', command: COMMANDS[1], input: { args: ['7', 'key_x'] } });
    expect(parseCli(COMMANDS, ['purge'])).toMatchObject({ kind: 'run', command: COMMANDS[2] });
  });

  it('answers help globally and per command', () => {
    const global = parseCli(COMMANDS, ['--help']);
    expect(global.kind).toBe('help');
    expect((global as { text: string }).text).toContain('key revoke ACCOUNT_ID KEY_ID');
    expect(parseCli(COMMANDS, ['help']).kind).toBe('help');
    const one = parseCli(COMMANDS, ['key', 'revoke', '-h']);
    expect(one).toEqual({ kind: 'help', text: expect.stringContaining('key revoke ACCOUNT_ID KEY_ID') });
    expect((one as { text: string }).text).not.toContain('account create');
  });

  it.each([[[]], [['nope']], [['account']], [['account', 'create']], [['account', 'create', '--name']], [['account', 'create', '--name', 'x', '--other', 'y']], [['key', 'revoke', '1']], [['purge', 'extra']]])(
    'refuses %j with the usage',
    (argv) => {
      const parsed = parseCli(COMMANDS, argv);
      expect(parsed).toEqual({ kind: 'usage-error', text: expect.stringContaining('usage:') });
    },
  );

  it('runs nothing while parsing', () => {
    parseCli(COMMANDS, ['purge']);
    expect(ran).toEqual([]);
  });
});
