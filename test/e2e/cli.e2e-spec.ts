import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMysqlDatabase } from '../support/databases';
import { requireService, TEST_MYSQL } from '../support/services';

const ROOT = join(__dirname, '../..');
const LAUNCHER = join(ROOT, 'tools/cli.js');

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `npm run cli -- ...args` the way npm does (node tools/cli.js), in its own process. */
function cli(env: Record<string, string>, ...args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [LAUNCHER, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, cwd: ROOT }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

const json = (result: CliResult) => {
  expect({ code: result.code, stderr: result.stderr.replace(/^note: .*\n/gm, '') }).toEqual({ code: 0, stderr: '' });
  expect(result.stdout.trim().split('\n')).toHaveLength(1);
  return JSON.parse(result.stdout);
};

describe('operator CLI (sqlite)', () => {
  let dir: string;
  let env: Record<string, string>;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wh-cli-'));
    env = { STORAGE: 'sqlite', SQLITE_PATH: join(dir, 'service.db') };
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints the usage on stdout for --help, globally and per command, and exits 0', async () => {
    const global = await cli(env, '--help');
    expect(global.code).toBe(0);
    for (const command of ['account create --name', 'account list', 'account show ACCOUNT_ID', 'account delete ACCOUNT_ID', 'key create ACCOUNT_ID', 'key list ACCOUNT_ID', 'key revoke ACCOUNT_ID KEY_ID']) {
      expect(global.stdout).toContain(command);
    }
    const one = await cli(env, 'key', 'revoke', '--help');
    expect(one).toEqual({ code: 0, stdout: expect.stringContaining('key revoke ACCOUNT_ID KEY_ID'), stderr: '' });
    expect(one.stdout).not.toContain('account create');
  });

  it('refuses an unknown command or a missing argument with the usage on stderr and exit 2', async () => {
    for (const args of [[], ['frobnicate'], ['account'], ['account', 'create'], ['account', 'create', '--name'], ['account', 'create', '--nom', 'x'], ['account', 'show'], ['key', 'revoke', '1'], ['account', 'show', '1', '2']]) {
      const result = await cli(env, ...args);
      expect({ args, code: result.code, stdout: result.stdout }).toEqual({ args, code: 2, stdout: '' });
      expect(result.stderr).toContain('usage:');
    }
  });

  it('manages accounts and keys, one JSON value per command', async () => {
    const acme = json(await cli(env, 'account', 'create', '--name', 'Acme'));
    expect(acme).toEqual({ id: expect.any(Number), name: 'Acme', apiKey: expect.stringMatching(/^sk_/), apiKeyId: expect.stringMatching(/^key_/) });
    const beta = json(await cli(env, 'account', 'create', '--name=Beta Corp'));
    expect(beta.name).toBe('Beta Corp');

    expect(json(await cli(env, 'account', 'show', String(acme.id)))).toEqual({ id: acme.id, name: 'Acme', createdAt: expect.stringMatching(/Z$/) });
    const listed = json(await cli(env, 'account', 'list'));
    expect(listed.accounts.map((a: { id: number }) => a.id)).toEqual([acme.id, beta.id]);

    const key = json(await cli(env, 'key', 'create', String(acme.id)));
    expect(key).toEqual({ id: expect.stringMatching(/^key_/), apiKey: expect.stringMatching(/^sk_/) });
    const keys = json(await cli(env, 'key', 'list', String(acme.id)));
    expect(keys).toEqual({
      apiKeys: [
        { id: acme.apiKeyId, prefix: acme.apiKey.slice(0, 8), createdAt: expect.any(String), lastUsedAt: null },
        { id: key.id, prefix: key.apiKey.slice(0, 8), createdAt: expect.any(String), lastUsedAt: null },
      ],
    });
    expect(JSON.stringify(keys)).not.toContain(key.apiKey);
    expect(json(await cli(env, 'key', 'revoke', String(acme.id), key.id))).toEqual({ revoked: key.id });
    expect(json(await cli(env, 'key', 'list', String(acme.id))).apiKeys).toHaveLength(1);
    const revokedAgain = await cli(env, 'key', 'revoke', String(acme.id), key.id);
    expect({ code: revokedAgain.code, error: JSON.parse(revokedAgain.stderr.trim().split('\n').pop()!).code }).toEqual({ code: 1, error: 'not_found' });

    expect(json(await cli(env, 'account', 'delete', String(beta.id)))).toEqual({ deleted: beta.id });
    expect(json(await cli(env, 'account', 'list')).accounts.map((a: { id: number }) => a.id)).toEqual([acme.id]);
  });

  it('answers an unknown account or key with the error body on stderr and exit 1', async () => {
    for (const args of [['account', 'show', '999999'], ['account', 'show', 'abc'], ['account', 'delete', '999999'], ['key', 'create', '999999'], ['key', 'list', '999999'], ['key', 'revoke', '1', 'key_nope']]) {
      const result = await cli(env, ...args);
      expect({ args, code: result.code, stdout: result.stdout }).toEqual({ args, code: 1, stdout: '' });
      expect(JSON.parse(result.stderr.trim().split('\n').pop()!)).toEqual({ code: 'not_found', message: expect.any(String) });
    }
  });

  it('answers a database it cannot reach as unavailable, naming the setting but never the password', async () => {
    const result = await cli({ STORAGE: 'mysql', DATABASE_URL: 'mysql://ops:hunter2-secret@127.0.0.1:1/nowhere' }, 'account', 'list');
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 1, stdout: '' });
    expect(JSON.parse(result.stderr.trim().split('\n').pop()!)).toEqual({
      code: 'unavailable',
      message: expect.stringContaining('DATABASE_URL: cannot connect to the MySQL database 127.0.0.1:1/nowhere: '),
    });
    expect(result.stderr).not.toContain('hunter2');
  });

  it('runs every retention purge with purge, as POST /admin/maintenance/purge does', async () => {
    expect(json(await cli(env, 'purge'))).toEqual({ sendStatus: 0, events: 0, runs: 0 });
  });

  it('pages through every account for account list', async () => {
    const created = [];
    for (let i = 0; i < 3; i++) created.push(json(await cli(env, 'account', 'create', '--name', `Paged ${i}`)).id);
    const ids = json(await cli(env, 'account', 'list')).accounts.map((a: { id: number }) => a.id);
    expect(ids).toEqual(expect.arrayContaining(created));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it('runs the existing build without rewriting it', async () => {
    const entry = join(ROOT, 'dist/apps/api/src/cli.js');
    const before = statSync(entry);
    json(await cli(env, 'account', 'list'));
    const after = statSync(entry);
    expect({ ino: after.ino, mtimeMs: after.mtimeMs }).toEqual({ ino: before.ino, mtimeMs: before.mtimeMs });
  });
});

const mysqlUp = requireService('MariaDB', TEST_MYSQL.host, TEST_MYSQL.port);

(mysqlUp ? describe : describe.skip)('operator CLI (mariadb)', () => {
  it('creates, shows and deletes an account in MariaDB', async () => {
    const database = await createMysqlDatabase('wh_cli');
    try {
      const env = { STORAGE: 'mysql', DATABASE_URL: database.url };
      const created = json(await cli(env, 'account', 'create', '--name', 'Zoë & Co'));
      expect(json(await cli(env, 'account', 'show', String(created.id)))).toMatchObject({ id: created.id, name: 'Zoë & Co' });
      expect(json(await cli(env, 'account', 'delete', String(created.id)))).toEqual({ deleted: created.id });
      expect((await cli(env, 'account', 'show', String(created.id))).code).toBe(1);
    } finally {
      await database.drop();
    }
  });
});
