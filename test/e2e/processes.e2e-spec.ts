import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { DIST, startProcess, waitForOutput } from '../support/processes';
import { randomListenPort } from '../support/ports';

/** The built apps as an operator runs them: start-up, configuration errors, SIGTERM. */
describe('processes', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'wh-proc-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const baseEnv = () => ({ SQLITE_PATH: join(dir, 'data', 'service.db'), LOG_LEVEL: 'info' });

  it.each([
    [{ STORAGE: 'oracle' }, /^configuration error: STORAGE: got "oracle", accepted values: sqlite, mysql\n$/],
    [{ PORT: 'abc' }, /^configuration error: PORT: got "abc", expected an integer from 1 to 65535\n$/],
    [{ PORT: '0' }, /^configuration error: PORT: got "0", expected an integer from 1 to 65535\n$/],
    [{ STORAGE: 'mysql' }, /^configuration error: DATABASE_URL: required when STORAGE=mysql/],
  ])('stops with one line naming the variable for %j', async (env, expected) => {
    const sut = startProcess('apps/api/src/main.js', { ...baseEnv(), ...env });
    const { code } = await sut.exited;
    expect(code).toBe(1);
    expect(sut.output()).toMatch(expected);
  });

  it('stops with an error naming DATABASE_URL (and not its password) when MySQL cannot be reached', async () => {
    const sut = startProcess('apps/api/src/main.js', { ...baseEnv(), STORAGE: 'mysql', DATABASE_URL: 'mysql://root:s3cret-pass@127.0.0.1:1/nowhere', QUEUE: 'database' });
    const { code } = await sut.exited;
    expect(code).toBe(1);
    expect(sut.output()).toContain('start-up failed: DATABASE_URL: cannot connect to the MySQL database 127.0.0.1:1/nowhere: ');
    expect(sut.output()).not.toContain('s3cret-pass');
  });

  it.each([
    ['a directory', (d: string) => d],
    ['under a file', (d: string) => (writeFileSync(join(d, 'file'), 'not a directory'), join(d, 'file', 'service.db'))],
    // Node's recursive mkdir loops forever under /proc; the server makes its folders one at a time
    ['under /proc', () => '/proc/no-such-folder/service.db'],
  ])('stops with an error naming SQLITE_PATH when the SQLite file is %s', async (_what, pathIn) => {
    const path = pathIn(mkdtempSync(join(dir, 'sqlite-')));
    const sut = startProcess('apps/api/src/main.js', { ...baseEnv(), SQLITE_PATH: path });
    const { code } = await sut.exited;
    expect(code).toBe(1);
    expect(sut.output()).toContain(`start-up failed: SQLITE_PATH: cannot open the SQLite database ${path}: `);
    // Once: Nest's own report of it is a debug line.
    expect(sut.output().split('cannot open the SQLite database').length - 1).toBe(1);
  });

  it('serves on embedded defaults, prints generated tokens once, and stops cleanly on SIGTERM', async () => {
    const port = String(randomListenPort());
    const sut = startProcess('apps/api/src/main.js', { ...baseEnv(), PORT: port });
    await waitForOutput(sut, /api listening/);
    const health = await fetch(`http://127.0.0.1:${port}/health`);
    expect(health.status).toBe(200);
    expect(listenBacklog(port)).toBe(Math.min(4096, Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8'))));
    const output = sut.output();
    expect(output.match(/ADMIN_TOKEN was not set: generated one for this run/g)).toHaveLength(1);
    expect(output.match(/INTERNAL_TOKEN was not set: generated one for this run/g)).toHaveLength(1);
    expect(output).toMatch(/SECRETS_KEY is not set/);

    sut.child.kill('SIGTERM');
    const exit = await sut.exited;
    expect(exit.code).toBe(0);
    expect(sut.output()).toMatch(/stopped: in-flight work finished or released/);
  });

  it.each([
    ['apps/api/src/main.js', 'PORT'],
    ['apps/dispatcher/src/main.js', 'DISPATCHER_HEALTH_PORT'],
  ])('%s stops with an error naming %s when the port is taken, before it takes any work', async (entry, variable) => {
    const port = randomListenPort();
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(port, '0.0.0.0', () => resolve()));
    try {
      const sut = startProcess(entry, { ...baseEnv(), [variable]: String(port) });
      const { code } = await sut.exited;
      expect(code).toBe(1);
      expect(sut.output()).toContain(`start-up failed: ${variable} ${port}: already in use`);
      expect(sut.output()).not.toMatch(/"msg":"consuming"/);
    } finally {
      await new Promise<void>((resolve) => holder.close(() => resolve()));
    }
  });

  it('runs the dispatcher alone and stops it cleanly on SIGTERM', async () => {
    const healthPort = String(randomListenPort());
    const sut = startProcess('apps/dispatcher/src/main.js', { ...baseEnv(), DISPATCHER_HEALTH_PORT: healthPort });
    await waitForOutput(sut, /dispatcher started/);
    expect(sut.output()).toMatch(/SECRETS_KEY is not set/);
    expect((await fetch(`http://127.0.0.1:${healthPort}/health`)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sut.child.exitCode).toBeNull();
    sut.child.kill('SIGTERM');
    const exit = await sut.exited;
    expect(exit.code).toBe(0);
    expect(sut.output()).toMatch(/stopped: in-flight work finished or released/);
  });

  // npm runs a script through `sh -c`; Debian's sh (dash) neither execs the command nor passes
  // SIGTERM on, so without `exec` a supervisor signalling npm left the server running, orphaned.
  it.each([
    ['start', 'PORT', /api listening/, true],
    ['start:api', 'PORT', /api listening/, false],
    ['start:dispatcher', 'DISPATCHER_HEALTH_PORT', /dispatcher started/, true],
  ])('npm run %s: SIGTERM to npm stops the server it started', async (script, portVariable, started, dispatches) => {
    const port = String(randomListenPort());
    const npm = spawn('npm', ['run', '--ignore-scripts', '--silent', script], {
      cwd: join(DIST, '..'),
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, ...baseEnv(), [portVariable]: port },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    npm.stdout.on('data', (chunk) => (output += chunk));
    npm.stderr.on('data', (chunk) => (output += chunk));
    const closed = new Promise<string>((resolve) => npm.once('close', (code, signal) => resolve(signal ?? String(code))));
    await waitForOutput({ child: npm, output: () => output, exited: closed as never }, started);
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);

    npm.kill('SIGTERM');
    expect(['0', 'SIGTERM']).toContain(await closed);
    if (dispatches) expect(output).toMatch(/stopped: in-flight work finished or released/);
    await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
  });
});

/** The listen queue of the socket on `port` as the kernel reports it (`ss`: Send-Q of a listening socket). */
function listenBacklog(port: string): number {
  const line = execFileSync('ss', ['-Hltn', `sport = :${port}`], { encoding: 'utf8' }).trim().split('\n')[0];
  return Number(line.split(/\s+/)[2]);
}
