import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createMysqlDatabase } from '../support/databases';
import { deleteTestStream, uniqueNatsPrefix } from '../support/nats';
import { DIST, RunningProcess, startProcess, waitForOutput } from '../support/processes';
import { TEST_MYSQL, TEST_NATS } from '../support/services';
import { startTcpProxy, TcpProxy } from '../support/tcp-proxy';

export const API_ENTRY = 'apps/api/src/main.js';
export const DISPATCHER_ENTRY = 'apps/dispatcher/src/main.js';
export const EVENT_TYPE = 'email.delivered';
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

/**
 * The whole deployment as separate processes: one API (DISPATCHER_ENABLED=false) and two
 * dispatchers on a fresh MariaDB database and a unique NATS prefix. Every process reaches NATS
 * through one proxy; the API alone reaches MariaDB through another, so a test can cut either.
 */
export class FaultStack {
  readonly prefix = uniqueNatsPrefix();
  readonly adminToken = `fault-admin-${randomBytes(12).toString('hex')}`;
  readonly internalToken = `fault-internal-${randomBytes(12).toString('hex')}`;
  readonly receiver = new RecordingReceiver();
  natsProxy!: TcpProxy;
  mysqlProxy!: TcpProxy;
  api!: RunningProcess;
  dispatchers: RunningProcess[] = [];
  /** Every process ever started, killed ones included, for the clean-up and for failure output. */
  readonly processes: Array<{ name: string; process: RunningProcess }> = [];
  apiUrl = '';
  accountId = 0;
  webhookPaths: string[] = [];
  private database: { url: string; name: string; drop(): Promise<void> } | null = null;
  private apiKey = '';

  async start(): Promise<void> {
    this.database = await createMysqlDatabase('wh_fault');
    this.natsProxy = await startTcpProxy(TEST_NATS.port, TEST_NATS.host);
    this.mysqlProxy = await startTcpProxy(TEST_MYSQL.port, TEST_MYSQL.host);
    await this.receiver.start();

    const port = 20000 + Math.floor(Math.random() * 20000);
    this.apiUrl = `http://127.0.0.1:${port}`;
    this.api = this.spawn('api', API_ENTRY, {
      PORT: String(port),
      DISPATCHER_ENABLED: 'false',
      DATABASE_URL: `mysql://${TEST_MYSQL.user}@127.0.0.1:${this.mysqlProxy.port}/${this.database.name}`,
    });
    await waitForOutput(this.api, /api listening/, 90_000);
    // The dispatchers start after the API has run the migrations (they would wait on the lock anyway).
    const first = this.startDispatcher(0);
    const second = this.startDispatcher(1);
    await Promise.all([first, second]);

    const account = await this.request('POST', '/admin/accounts', { name: 'Fault Co' }, { authorization: `Bearer ${this.adminToken}` });
    if (account.status !== 201) throw new Error(`creating the account answered ${account.status}: ${account.body}`);
    const created = JSON.parse(account.body) as { id: number; apiKey: string };
    this.accountId = created.id;
    this.apiKey = created.apiKey;
    for (let i = 0; i < WEBHOOKS; i++) {
      const path = `/hook-${i}`;
      const webhook = await this.request('POST', '/v3/Webhook', { url: `${this.receiver.url}${path}`, events: [EVENT_TYPE] }, { 'api-key': this.apiKey });
      if (webhook.status !== 201) throw new Error(`creating webhook ${i} answered ${webhook.status}: ${webhook.body}`);
      this.webhookPaths.push(path);
    }
  }

  /** Starts (or restarts) dispatcher `index` and waits until it runs. */
  async startDispatcher(index: number): Promise<RunningProcess> {
    const dispatcher = this.spawn(`dispatcher-${index}`, DISPATCHER_ENTRY, { DATABASE_URL: `${TEST_MYSQL.url}/${this.database!.name}` });
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

  /** Publishes `count` events in one batch request; never throws on an HTTP answer. */
  async publish(count: number, seq: number): Promise<PublishResult> {
    const events = Array.from({ length: count }, (_, i) => ({
      accountId: this.accountId,
      type: EVENT_TYPE,
      data: { email: `fault-${seq}-${i}@example.com`, idSending: seq * 1000 + i, sendingType: 1, diagCode: '250 2.0.0 OK', deliveredAt: new Date().toISOString() },
    }));
    const answer = await this.request('POST', '/internal/events/batch', { events }, { authorization: `Bearer ${this.internalToken}` });
    let ids: string[] = [];
    if (answer.status === 202) ids = (JSON.parse(answer.body) as { ids: string[] }).ids;
    return { status: answer.status, ids, body: answer.body };
  }

  async request(method: string, path: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; body: string }> {
    const response = await fetch(`${this.apiUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    return { status: response.status, body: await response.text() };
  }

  /** Last lines of every process's output, for a failure message. */
  outputTail(lines = 15): string {
    return this.processes.map(({ name, process }) => `--- ${name} ---\n${process.output().split('\n').slice(-lines).join('\n')}`).join('\n');
  }

  /** Kills every child, closes proxies and receiver, drops the database and the stream. Never throws. */
  async stop(): Promise<void> {
    for (const { process } of this.processes) {
      if (process.child.exitCode === null && process.child.signalCode === null) process.child.kill('SIGKILL');
    }
    await Promise.all(
      this.processes.map(({ process }) => {
        let timer: NodeJS.Timeout | undefined;
        const giveUp = new Promise((resolve) => (timer = setTimeout(resolve, 5_000)));
        return Promise.race([process.exited, giveUp]).finally(() => clearTimeout(timer));
      }),
    );
    await Promise.allSettled([this.natsProxy?.shutdown(), this.mysqlProxy?.shutdown(), this.receiver.close()]);
    await this.database?.drop().catch((error: unknown) => console.warn(`could not drop ${this.database?.name}: ${String(error)}`));
    await deleteTestStream(this.prefix).catch((error: unknown) => console.warn(`could not delete the stream of ${this.prefix}: ${String(error)}`));
  }

  private spawn(name: string, entry: string, env: Record<string, string>): RunningProcess {
    const process = startProcess(entry, {
      STORAGE: 'mysql',
      QUEUE: 'nats',
      NATS_URL: `nats://127.0.0.1:${this.natsProxy.port}`,
      NATS_PREFIX: this.prefix,
      ADMIN_TOKEN: this.adminToken,
      INTERNAL_TOKEN: this.internalToken,
      SECRETS_KEY: SECRETS_KEY,
      ALLOW_PRIVATE_TARGETS: 'true',
      DELIVERY_RETRY_SCHEDULE: '200ms,500ms,1s,2s,2s,2s,2s',
      DELIVERY_TIMEOUT_MS: '5000',
      SHUTDOWN_GRACE_MS: '2s',
      LOG_LEVEL: 'info',
      ...env,
    });
    this.processes.push({ name, process });
    return process;
  }
}

const SECRETS_KEY = randomBytes(32).toString('hex');
