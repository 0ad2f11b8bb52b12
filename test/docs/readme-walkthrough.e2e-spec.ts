import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DIST, RunningProcess, startProcess, waitForOutput } from '../support/processes';
import { readmeSnippet, REPO_ROOT } from '../support/readme';
import { waitFor } from '../support/waiting';

/**
 * The README's "Five minutes with event webhooks", run as written: the server starts with the
 * variables of the README's `npm start` line (from the built dist, on a random port and a temporary
 * SQLite file), then one bash session at the repository root runs the other snippets in order, as
 * someone pasting them into a second terminal would.
 */

const API_ENTRY = 'apps/api/src/main.js';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** `A=1 B=2 npm start` -> { A: '1', B: '2' }. */
function serverEnvironment(snippet: string): Record<string, string> {
  const line = snippet.split('\n').find((l) => /\bnpm start\b/.test(l));
  if (!line) throw new Error(`the server snippet has no "npm start" line:\n${snippet}`);
  const assignments = line.slice(0, line.indexOf('npm start')).trim().split(/\s+/).filter(Boolean);
  return Object.fromEntries(
    assignments.map((assignment) => {
      const match = /^([A-Z_][A-Z0-9_]*)=(\S+)$/.exec(assignment);
      if (!match) throw new Error(`unexpected word before "npm start": ${assignment}`);
      return [match[1], match[2]];
    }),
  );
}

/** A bash session fed one snippet at a time, like a terminal; output is stdout and stderr together. */
class Terminal {
  private output = '';
  private step = 0;
  private readonly shell: ChildProcess;

  constructor(cwd: string, env: Record<string, string>) {
    // Its own process group, so the receiver it starts in the background is stopped with it.
    this.shell = spawn('bash', [], { cwd, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    this.shell.stdout!.on('data', (chunk) => (this.output += chunk));
    this.shell.stderr!.on('data', (chunk) => (this.output += chunk));
  }

  text(): string {
    return this.output;
  }

  /** Runs `commands` and resolves with what they printed, once they have all returned. */
  async run(commands: string, timeoutMs = 20_000): Promise<string> {
    const done = `__snippet_${++this.step}_done__`;
    const from = this.output.length;
    this.shell.stdin!.write(`${commands}\necho ${done}\n`);
    await this.waitFor(new RegExp(done), timeoutMs);
    return this.output.slice(from, this.output.indexOf(done, from));
  }

  async waitFor(pattern: RegExp, timeoutMs = 20_000): Promise<void> {
    await waitFor(`${pattern} in the terminal; it shows:\n${this.output}`, () => pattern.test(this.output), timeoutMs);
  }

  close(): void {
    try {
      process.kill(-this.shell.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

describe('README: five minutes with event webhooks', () => {
  let dir: string;
  let server: RunningProcess | undefined;
  let terminal: Terminal | undefined;

  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'wh-walkthrough-'))));
  afterAll(async () => {
    terminal?.close();
    if (server && server.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs as written, and the receiver prints the verified event after turning an unsigned request away', async () => {
    for (const built of [API_ENTRY, 'libs/signing/src/index.js']) {
      if (!existsSync(join(DIST, built))) throw new Error(`dist/${built} is missing: run "npm run build" first (npm test does)`);
    }
    const env = serverEnvironment(readmeSnippet('walkthrough: server'));
    expect(Object.keys(env)).toEqual(expect.arrayContaining(['ALLOW_PRIVATE_TARGETS', 'ADMIN_TOKEN', 'INTERNAL_TOKEN']));
    const [port, receiverPort] = [await freePort(), await freePort()];
    server = startProcess(API_ENTRY, { ...env, PORT: String(port), SQLITE_PATH: join(dir, 'service.db'), LOG_LEVEL: 'info' });
    await waitForOutput(server, /api listening/);

    terminal = new Terminal(REPO_ROOT, { PATH: process.env.PATH ?? '', HOME: dir, BASE_URL: `http://127.0.0.1:${port}`, RECEIVER_PORT: String(receiverPort) });

    const setup = await terminal.run(readmeSnippet('walkthrough: setup'));
    expect(setup).toMatch(/"apiKey":"sk_/);
    expect(setup).toMatch(/"secret":"whsec_/);
    const variables = await terminal.run('echo "ACCOUNT_ID=$ACCOUNT_ID API_KEY=$API_KEY WEBHOOK_SECRET=$WEBHOOK_SECRET"');
    expect(variables).toMatch(/^ACCOUNT_ID=\d+ API_KEY=sk_\S+ WEBHOOK_SECRET=whsec_\S+\n$/);

    await terminal.run(readmeSnippet('walkthrough: receiver'));
    await terminal.waitFor(new RegExp(`receiver listening on port ${receiverPort}`));

    const unsigned = await terminal.run(readmeSnippet('walkthrough: unsigned'));
    expect(unsigned).toMatch(/^400$/m);
    await terminal.waitFor(/rejected: malformed_header/);

    const published = await terminal.run(readmeSnippet('walkthrough: publish'));
    const eventId = /\{"id":"(evt_[^"]+)"/.exec(published)?.[1];
    expect(eventId).toBeDefined();
    await terminal.waitFor(/verified email\.delivered \{.*\}\n/);

    const line = /verified email\.delivered (\{.*\})\n/.exec(terminal.text())![1];
    const accountId = Number(/ACCOUNT_ID=(\d+)/.exec(variables)![1]);
    expect(JSON.parse(line)).toMatchObject({
      id: eventId,
      type: 'email.delivered',
      apiVersion: 'v3',
      account: { id: accountId, name: 'Acme' },
      data: { email: 'jane@example.com', idSending: 1001 },
    });
    expect(terminal.text()).not.toMatch(/command not found|No such file|Error:|Cannot find module|undefined/);
  }, 90_000);
});
