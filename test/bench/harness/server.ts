import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { Pool } from 'undici';
import { TEST_MYSQL, TEST_NATS } from '../../support/services';
import { freePort, pollUntil } from '../bench-support';
import type { Leftover } from './cleanup';
import { Child, Run } from './run';

export type Profile = 'sqlite' | 'mysql-nats';

const DIST = join(__dirname, '../../..');
const API = join(DIST, 'apps/api/src/main.js');
const DISPATCHER = join(DIST, 'apps/dispatcher/src/main.js');
/**
 * BENCH_SERVER_NODE_ARGS: extra node options for the server processes only, to see where their time
 * goes without touching the load generator or the receiver (`--cpu-prof --cpu-prof-dir=/tmp/prof`).
 */
const serverNodeArgs = { nodeArgs: (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean) };

/**
 * The server under test, as an operator runs it: built processes with env only. "sqlite": one API
 * process with the dispatcher in it. "mysql-nats": an API (DISPATCHER_ENABLED=false) and one or
 * more dispatchers on a fresh MariaDB database and a NATS prefix of their own.
 * Server defaults are kept except where a figure needs otherwise (see `env`).
 */
export class BenchServer {
  readonly adminToken = `bench-admin-${randomBytes(12).toString('hex')}`;
  readonly internalToken = `bench-internal-${randomBytes(12).toString('hex')}`;
  readonly dispatchers: Child[] = [];
  api!: Child;
  url = '';
  pool!: Pool;
  private env: Record<string, string> = {};
  /** The MariaDB database and NATS prefix of this server, removed when it stops. */
  private readonly storage: Leftover[] = [];

  constructor(
    readonly run: Run,
    readonly profile: Profile,
  ) {}

  async start(): Promise<void> {
    const storage = await this.storageEnv();
    this.env = {
      ...storage,
      ADMIN_TOKEN: this.adminToken,
      INTERNAL_TOKEN: this.internalToken,
      SECRETS_KEY: randomBytes(32).toString('hex'),
      ALLOW_PRIVATE_TARGETS: 'true',
      // Fairness (ii) keeps an endpoint failing for thousands of attempts; at the default 10 the
      // webhook would be disabled and its deliveries skipped, which measures nothing.
      WEBHOOK_DISABLE_AFTER: '1000000',
      // The per-trigger-URL rate limit (10/s) is a guard, not the throughput being measured.
      TRIGGER_RATE_LIMIT_BURST: '1000000',
      TRIGGER_RATE_LIMIT_PER_SECOND: '1000000',
    };
    const port = await freePort();
    this.url = `http://127.0.0.1:${port}`;
    this.api = this.run.start(`${this.profile}-api`, API, { ...this.env, PORT: String(port), ...(this.profile === 'mysql-nats' ? { DISPATCHER_ENABLED: 'false' } : {}) }, serverNodeArgs);
    await this.waitAnswering(this.api, `${this.url}/ready`);
    this.pool = new Pool(this.url, { connections: 8 });
    if (this.profile === 'mysql-nats') await this.addDispatcher();
  }

  /** Starts one more dispatcher process (mysql-nats) and waits until it runs. */
  async addDispatcher(): Promise<Child> {
    const healthPort = await freePort();
    const child = this.run.start(`${this.profile}-dispatcher-${this.dispatchers.length + 1}`, DISPATCHER, { ...this.env, DISPATCHER_HEALTH_PORT: String(healthPort) }, serverNodeArgs);
    await this.waitAnswering(child, `http://127.0.0.1:${healthPort}/health`);
    this.dispatchers.push(child);
    return child;
  }

  async removeDispatcher(child: Child): Promise<void> {
    this.dispatchers.splice(this.dispatchers.indexOf(child), 1);
    await this.run.stop(child);
  }

  /** Whether every server process is still alive. */
  running(): boolean {
    return [this.api, ...this.dispatchers].every((child) => child.process.exitCode === null && child.process.signalCode === null);
  }

  /**
   * Waits until every server process, and on mysql-nats mariadbd and nats-server, uses under 5 % of
   * a core over half a second (start-up work, a backlog, an idle-time collection, InnoDB purging
   * what the last figure wrote), 15 s at most: a figure or a baseline measured beside a busy server
   * would be measured on a smaller machine.
   */
  async waitQuiet(): Promise<void> {
    const pids = [...[this.api, ...this.dispatchers].map((child) => child.pid), ...(this.profile === 'mysql-nats' ? pidsNamed(['mariadbd', 'nats-server']) : [])];
    const cpuMs = () => pids.map(cpuTimeMs);
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      const before = cpuMs();
      await new Promise((resolve) => setTimeout(resolve, 500));
      if (cpuMs().every((ms, i) => ms - before[i] < 25)) return;
    }
  }

  /** Resident memory of every server process, in MiB, read from /proc as an outsider would. */
  rssMb(): number {
    return Object.values(this.rssByProcess()).reduce((a, b) => a + b, 0);
  }

  rssByProcess(): Record<string, number> {
    return Object.fromEntries(
      [this.api, ...this.dispatchers].map((child) => {
        const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        return [child.name.replace(`${this.profile}-`, ''), match ? Number(match[1]) / 1024 : NaN];
      }),
    );
  }

  /** One JSON call for set-up (not measured); throws unless the status is `expected`. */
  async call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, headers: Record<string, string>, body: unknown, expected: number): Promise<T> {
    const response = await this.pool.request({
      method,
      path,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.body.text();
    if (response.statusCode !== expected) throw new Error(`${method} ${path}: ${response.statusCode} ${text.slice(0, 300)}`);
    return (text ? JSON.parse(text) : null) as T;
  }

  createAccount(name: string): Promise<{ id: number; apiKey: string }> {
    return this.call('POST', '/admin/accounts', { authorization: `Bearer ${this.adminToken}` }, { name }, 201);
  }

  createWebhook(apiKey: string, url: string, events: string[]): Promise<{ id: string; secret: string }> {
    return this.call('POST', '/v3/Webhook', { 'api-key': apiKey }, { url, events }, 201);
  }

  deleteWebhook(apiKey: string, id: string): Promise<void> {
    return this.call('DELETE', `/v3/Webhook/${id}`, { 'api-key': apiKey }, undefined, 204);
  }

  /** Output tails of the server processes, for a failure message. */
  tails(): string {
    return [this.api, ...this.dispatchers].map((child) => `--- ${child.name} ---\n${child.tail()}`).join('\n');
  }

  /** Lines at level error (50) or fatal (60) the server processes logged so far. */
  errorLines(): number {
    return [this.api, ...this.dispatchers].reduce((sum, child) => sum + child.tail(1_000_000).split('\n').filter((line) => /"level":(50|60)/.test(line)).length, 0);
  }

  async stop(): Promise<void> {
    await this.pool?.close().catch(() => undefined);
    for (const child of [...this.dispatchers, this.api].filter(Boolean)) await this.run.stop(child);
    for (const item of this.storage) await this.run.undo(item);
  }

  private async storageEnv(): Promise<Record<string, string>> {
    if (this.profile === 'sqlite') {
      const dir = mkdtempSync(join(this.run.dir, 'sqlite-'));
      this.storage.push({ kind: 'dir', path: dir });
      return { STORAGE: 'sqlite', SQLITE_PATH: join(dir, 'bench.db'), QUEUE: 'database' };
    }
    const name = `wh_bench_${randomBytes(5).toString('hex')}`;
    const prefix = `bench_${randomBytes(4).toString('hex')}`;
    this.storage.push({ kind: 'database', name }, { kind: 'nats', prefix });
    for (const item of this.storage) this.run.track(item);
    const connection = await createConnection({ host: TEST_MYSQL.host, port: TEST_MYSQL.port, user: TEST_MYSQL.user });
    await connection.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    await connection.end();
    return { STORAGE: 'mysql', DATABASE_URL: `${TEST_MYSQL.url}/${name}`, QUEUE: 'nats', NATS_URL: TEST_NATS.url, NATS_PREFIX: prefix };
  }

  private async waitAnswering(child: Child, url: string): Promise<void> {
    const ok = await pollUntil(async () => {
      if (child.process.exitCode !== null) throw new Error(`${child.name} exited:\n${child.tail()}`);
      return fetch(url, { signal: AbortSignal.timeout(2_000) }).then(
        (response) => response.status === 200,
        () => false,
      );
    }, 90_000);
    if (!ok) throw new Error(`${child.name} did not answer ${url} within 90 s:\n${child.tail()}`);
  }
}

/** User and system CPU time of a process so far, from /proc (clock ticks of 10 ms); 0 once it is gone. */
function cpuTimeMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

/** The pids of the processes whose command name is one of `names` (the shared MariaDB and NATS servers). */
function pidsNamed(names: string[]): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return names.includes(readFileSync(`/proc/${pid}/comm`, 'utf8').trim());
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** MariaDB's global `Questions` counter (statements sent by clients), read on a connection of its own. */
export async function mariadbQuestions(): Promise<{ read(): Promise<number>; close(): Promise<void> }> {
  const connection = await createConnection({ host: TEST_MYSQL.host, port: TEST_MYSQL.port, user: TEST_MYSQL.user });
  return {
    read: async () => {
      const [rows] = await connection.query("SHOW GLOBAL STATUS LIKE 'Questions'");
      return Number((rows as Array<{ Value: string }>)[0].Value);
    },
    close: () => connection.end(),
  };
}
