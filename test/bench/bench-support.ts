import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, IncomingMessage, Server } from 'node:http';
import { cpus, tmpdir, totalmem } from 'node:os';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { ChildProcess, spawn } from 'node:child_process';
import { Pool } from 'undici';
import type { AppConfig } from '../../config/load-config';

/** Shared pieces of the benchmarks: a counting receiver, fresh databases, percentiles, tables. */

export interface CountingReceiver {
  url: string;
  received: number;
  /** Called for every request with its raw body and the time it arrived. */
  onRequest: (body: Buffer, at: number, request: IncomingMessage) => void;
  close(): Promise<void>;
}

export async function startCountingReceiver(): Promise<CountingReceiver> {
  const receiver: CountingReceiver = {
    url: '',
    received: 0,
    onRequest: () => undefined,
    close: async () => undefined,
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      receiver.received++;
      receiver.onRequest(Buffer.concat(chunks), performance.now(), request);
      response.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  receiver.close = () => new Promise((resolve) => server.close(() => resolve()));
  return receiver;
}

export interface BenchStorage {
  storage: AppConfig['storage'];
  drop(): Promise<void>;
}

export async function freshStorage(kind: 'sqlite' | 'mysql'): Promise<BenchStorage> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'wh-bench-'));
    return { storage: { kind: 'sqlite', sqlitePath: join(dir, 'bench.db'), databaseUrl: null }, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `wh_bench_${randomBytes(5).toString('hex')}`;
  const admin = await createConnection({ host: '127.0.0.1', port: 3306, user: 'root' });
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  return {
    storage: { kind: 'mysql', sqlitePath: '', databaseUrl: `mysql://root@127.0.0.1:3306/${name}` },
    drop: async () => {
      await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await admin.end();
    },
  };
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export function machineLine(): string {
  return `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
}

export function printTable(title: string, rows: Array<Record<string, string | number>>): void {
  console.log(`\n${title}`);
  console.table(rows);
}

export const round = (value: number, digits = 1) => Number(value.toFixed(digits));

/** Starts the built API (dispatcher in-process unless env says otherwise) as a child process; resolves once /ready answers. */
export async function startApi(profile: string, env: Record<string, string>): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child = spawn(process.execPath, [join(__dirname, '../../apps/api/src/main.js')], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let errors = '';
  child.stderr!.on('data', (chunk) => (errors += chunk));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${profile}: the API exited: ${errors}`);
    try {
      if ((await fetch(`${url}/ready`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${profile}: the API did not become ready: ${errors}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    child,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Runs `total` requests over `connections` concurrent loops; returns requests/s and sorted latencies. */
export async function drive(total: number, connections: number, request: (i: number) => Promise<void>): Promise<{ perSecond: number; latencies: number[] }> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < total) {
        const i = next++;
        const t = performance.now();
        await request(i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { perSecond: total / seconds, latencies: latencies.sort((a, b) => a - b) };
}

/** One JSON request through an undici Pool; throws unless the status is `expected`. */
export async function json(pool: Pool, method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: unknown, expected = 200): Promise<unknown> {
  const response = await pool.request({
    method,
    path,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.body.text();
  if (response.statusCode !== expected) throw new Error(`${method} ${path}: ${response.statusCode} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

/** The plumbing baseline: a bare undici POST loop with an HMAC signature per request, to a local receiver. */
export async function bareUndiciBaseline(items: number, concurrency: number): Promise<number> {
  const { createHmac } = await import('node:crypto');
  const receiver = await startCountingReceiver();
  const pool = new Pool(new URL(receiver.url).origin, { connections: concurrency });
  const body = JSON.stringify({ payload: 'x'.repeat(1024) });
  const { perSecond } = await drive(items, concurrency, async () => {
    const t = Math.floor(Date.now() / 1000);
    const signature = createHmac('sha256', 'whsec_bench').update(`${t}.${body}`).digest('hex');
    const response = await pool.request({ method: 'POST', path: '/hook', headers: { 'content-type': 'application/json', 'x-service-signature': `t=${t},v1=${signature}` }, body });
    await response.body.dump();
  });
  await pool.close();
  await receiver.close();
  return perSecond;
}
