import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { createMysqlDatabase, MysqlServer } from '../support/databases';
import { deleteTestStream, uniqueNatsPrefix } from '../support/nats';
import { DIST, RunningProcess, startProcess, waitForOutput } from '../support/processes';
import { TEST_MYSQL, TEST_NATS } from '../support/services';
import { startTcpProxy, TcpProxy } from '../support/tcp-proxy';
import { freePorts, killNow, killOnExit } from './local-ports';

export const API_ENTRY = 'apps/api/src/main.js';
export const DISPATCHER_ENTRY = 'apps/dispatcher/src/main.js';
export const EVENT_TYPE = 'email.delivered';
/** A second type, for webhooks apart from the WEBHOOKS every case counts. */
export const OTHER_EVENT_TYPE = 'email.processed';
export const WEBHOOKS = 5;

/** Fails with a clear message when the built entry points are missing. */
export function assertBuilt(): void {
  const missing = [API_ENTRY, DISPATCHER_ENTRY].filter((entry) => !existsSync(join(DIST, entry)));
  if (missing.length > 0) {
    throw new Error(`the fault suite runs the built apps, and ${missing.map((m) => `dist/${m}`).join(', ')} is missing: run \`npm run build\` first (\`npm run test:faults\` does)`);
  }
}

/**
 * A receiver that answers 200 after a random 0-50 ms and records every (event id, path) pair it
 * got, with arrival times, so a test can count losses, duplicates and when deliveries resumed.
 */
export class RecordingReceiver {
  readonly counts = new Map<string, number>();
  /** Arrival time of every request, in order, with its pair key. */
  readonly arrivals: Array<{ key: string; eventId: string; at: number }> = [];
  private server!: Server;
  url = '';

  static key(eventId: string, path: string): string {
    return `${eventId} ${path}`;
  }

  async start(): Promise<void> {
    this.server = createServer((req: IncomingMessage, res: ServerResponse) => {
      req.resume();
      req.on('end', () => {
        const eventId = String(req.headers['x-service-event-id'] ?? '');
        const key = RecordingReceiver.key(eventId, req.url ?? '');
        this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
        this.arrivals.push({ key, eventId, at: Date.now() });
        setTimeout(() => {
          if (!res.destroyed) res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
        }, Math.floor(Math.random() * 51));
      });
    });
    // Longer than the client's idle keep-alive, so a reused socket is never closed under a request.
    this.server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export interface PublishResult {
  status: number;
  ids: string[];
  body: string;
}

export interface FaultStackOptions {
  /**
   * A MariaDB server of the test's own, reached directly by every process (it is the server that
   * fails). Unset: the shared test server, which the API reaches through `mysqlProxy`.
   */
  mysql?: MysqlServer;
  /** NATS_URL of a cluster of the test's own, reached directly. Unset: the shared server through `natsProxy`. */
  natsUrl?: string;
  /** More environment for every process (e.g. NATS_REPLICAS). */
  env?: Record<string, string>;
}

/**
 * The whole deployment as separate processes: one API (DISPATCHER_ENABLED=false) and two
 * dispatchers on a fresh MariaDB database and a unique NATS prefix. On the shared servers every
 * process reaches NATS through one proxy and the API alone reaches MariaDB through another, so a
 * test can cut either; on servers of the test's own, the servers themselves are killed.
 */
export class FaultStack {
  readonly prefix = uniqueNatsPrefix();
  readonly adminToken = `fault-admin-${randomBytes(12).toString('hex')}`;
  readonly internalToken = `fault-internal-${randomBytes(12).toString('hex')}`;
  readonly receiver = new RecordingReceiver();
  natsProxy: TcpProxy | null = null;
  mysqlProxy: TcpProxy | null = null;
  api!: RunningProcess;
  dispatchers: RunningProcess[] = [];
  /** Every process ever started, killed ones included, for the clean-up and for failure output. */
  readonly processes: Array<{ name: string; process: RunningProcess }> = [];
  apiUrl = '';
  accountId = 0;
  apiKey = '';
  webhookPaths: string[] = [];
  private apiPort = 0;
  private apiStarts = 0;
  private database: { url: string; name: string; drop(): Promise<void> } | null = null;

  constructor(private readonly options: FaultStackOptions = {}) {}

  /** Where the database lives (the shared test server unless the options name another). */
  get mysqlServer(): MysqlServer {
    return this.options.mysql ?? TEST_MYSQL;
  }

  async start(): Promise<void> {
    this.database = await createMysqlDatabase('wh_fault', this.mysqlServer);
    if (!this.options.natsUrl) this.natsProxy = await startTcpProxy(TEST_NATS.port, TEST_NATS.host);
    if (!this.options.mysql) this.mysqlProxy = await startTcpProxy(TEST_MYSQL.port, TEST_MYSQL.host);
    await this.receiver.start();

    [this.apiPort] = await freePorts(1);
    this.apiUrl = `http://127.0.0.1:${this.apiPort}`;
    await this.startApi();
    // The dispatchers start after the API has run the migrations (they would wait on the lock anyway).
    await Promise.all([this.startDispatcher(0), this.startDispatcher(1)]);

    const account = await this.request('POST', '/admin/accounts', { name: 'Fault Co' }, { authorization: `Bearer ${this.adminToken}` });
    if (account.status !== 201) throw new Error(`creating the account answered ${account.status}: ${account.body}`);
    const created = JSON.parse(account.body) as { id: number; apiKey: string };
    this.accountId = created.id;
    this.apiKey = created.apiKey;
    for (let i = 0; i < WEBHOOKS; i++) {
      const path = `/hook-${i}`;
      await this.createWebhook(path, [EVENT_TYPE]);
      this.webhookPaths.push(path);
    }
  }

  /** A webhook to the receiver at `path`; returns its id. */
  async createWebhook(path: string, events: string[]): Promise<string> {
    const webhook = await this.request('POST', '/v3/Webhook', { url: `${this.receiver.url}${path}`, events }, { 'api-key': this.apiKey });
    if (webhook.status !== 201) throw new Error(`creating the webhook ${path} answered ${webhook.status}: ${webhook.body}`);
    return (JSON.parse(webhook.body) as { id: string }).id;
  }

  /** Starts (or restarts, on the same port) the API and waits until it listens. */
  async startApi(): Promise<RunningProcess> {
    const databaseUrl = this.mysqlProxy
      ? `mysql://${TEST_MYSQL.user}@127.0.0.1:${this.mysqlProxy.port}/${this.database!.name}`
      : this.database!.url;
    this.api = this.spawn(`api-${++this.apiStarts}`, API_ENTRY, { PORT: String(this.apiPort), DISPATCHER_ENABLED: 'false', DATABASE_URL: databaseUrl });
    await waitForOutput(this.api, /api listening/, 90_000);
    return this.api;
  }

  /** SIGKILL of the API: requests in flight get a reset connection, nothing is released. */
  async killApi(): Promise<void> {
    this.api.child.kill('SIGKILL');
    await this.api.exited;
  }

  /** Starts (or restarts) dispatcher `index` and waits until it runs. */
  async startDispatcher(index: number): Promise<RunningProcess> {
    const dispatcher = this.spawn(`dispatcher-${index}`, DISPATCHER_ENTRY, { DATABASE_URL: this.database!.url });
    this.dispatchers[index] = dispatcher;
    await waitForOutput(dispatcher, /dispatcher started/, 90_000);
    return dispatcher;
  }

  /** SIGKILL: no grace, no release; what the queue sees of a crashed machine. */
  async killDispatcher(index: number): Promise<void> {
    const dispatcher = this.dispatchers[index];
    dispatcher.child.kill('SIGKILL');
    await dispatcher.exited;
  }

  /** Whether every process that should run still does (a process that died by itself is a finding). */
  deadProcesses(): string[] {
    const live = [this.api, ...this.dispatchers];
    return this.processes.filter(({ process }) => live.includes(process) && process.child.exitCode !== null).map(({ name, process }) => `${name} exited with ${process.child.exitCode}`);
  }

  /** Publishes `count` events of `type` (EVENT_TYPE or OTHER_EVENT_TYPE) in one batch request; never throws on an HTTP answer. */
  async publish(count: number, seq: number, type = EVENT_TYPE): Promise<PublishResult> {
    const at = new Date().toISOString();
    const events = Array.from({ length: count }, (_, i) => {
      const email = { email: `fault-${seq}-${i}@example.com`, idSending: seq * 1000 + i, sendingType: 1 };
      const data = type === EVENT_TYPE ? { ...email, diagCode: '250 2.0.0 OK', deliveredAt: at } : { ...email, processedAt: at };
      return { accountId: this.accountId, type, data };
    });
    const answer = await this.request('POST', '/internal/events/batch', { events }, { authorization: `Bearer ${this.internalToken}` });
    let ids: string[] = [];
    if (answer.status === 202) ids = (JSON.parse(answer.body) as { ids: string[] }).ids;
    return { status: answer.status, ids, body: answer.body };
  }

  async request(method: string, path: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; body: string }> {
    const response = await fetch(`${this.apiUrl}${path}`, {
      method,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    return { status: response.status, body: await response.text() };
  }

  /** One statement on the stack's database, straight to the server (for corrupting data on purpose). */
  async sql<T = unknown>(statement: string, params: unknown[] = []): Promise<T> {
    const { host, port, user } = this.mysqlServer;
    const connection = await createConnection({ host, port, user, database: this.database!.name });
    try {
      const [rows] = await connection.query(statement, params);
      return rows as T;
    } finally {
      await connection.end();
    }
  }

  /** A mark in every process's output, for `logsSince`. */
  logMark(): Map<RunningProcess, number> {
    return new Map(this.processes.map(({ process }) => [process, process.output().length]));
  }

  /** What every process printed after `mark` (all of it for a process started since). */
  logsSince(mark: Map<RunningProcess, number>): string {
    return this.processes.map(({ process }) => process.output().slice(mark.get(process) ?? 0)).join('\n');
  }

  /** Last lines of every process's output, for a failure message. */
  outputTail(lines = 15): string {
    return this.processes.map(({ name, process }) => `--- ${name} ---\n${process.output().split('\n').slice(-lines).join('\n')}`).join('\n');
  }

  /** Kills every child, closes proxies and receiver, drops the database and the stream. Never throws. */
  async stop(): Promise<void> {
    await Promise.all(this.processes.map(({ process }) => killNow(process.child, 5_000)));
    await Promise.allSettled([this.natsProxy?.shutdown(), this.mysqlProxy?.shutdown(), this.receiver.close()]);
    await this.database?.drop().catch((error: unknown) => console.warn(`could not drop ${this.database?.name}: ${String(error)}`));
    if (!this.options.natsUrl) await deleteTestStream(this.prefix).catch((error: unknown) => console.warn(`could not delete the stream of ${this.prefix}: ${String(error)}`));
  }

  private spawn(name: string, entry: string, env: Record<string, string>): RunningProcess {
    const process = startProcess(entry, {
      STORAGE: 'mysql',
      QUEUE: 'nats',
      NATS_URL: this.natsProxy ? `nats://127.0.0.1:${this.natsProxy.port}` : this.options.natsUrl!,
      NATS_PREFIX: this.prefix,
      ADMIN_TOKEN: this.adminToken,
      INTERNAL_TOKEN: this.internalToken,
      SECRETS_KEY: SECRETS_KEY,
      ALLOW_PRIVATE_TARGETS: 'true',
      DELIVERY_RETRY_SCHEDULE: '200ms,500ms,1s,2s,2s,2s,2s',
      DELIVERY_TIMEOUT_MS: '5000',
      // The receiver runs in the test's own process: a stall there (a CI run on a slow machine had
      // calls time out for seconds before case h's kill) is not a fault of the server, and ten
      // timeouts in a row would disable the webhook and skip the rest, which the report counts as
      // lost. The suite counts losses across infrastructure faults; auto-disable has tests of its own.
      WEBHOOK_DISABLE_AFTER: '1000',
      SHUTDOWN_GRACE_MS: '2s',
      LOG_LEVEL: 'info',
      ...this.options.env,
      ...env,
    });
    killOnExit(process.child);
    this.processes.push({ name, process });
    return process;
  }
}

const SECRETS_KEY = randomBytes(32).toString('hex');
