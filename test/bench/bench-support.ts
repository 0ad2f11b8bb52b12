import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, IncomingMessage, Server } from 'node:http';
import { cpus, tmpdir, totalmem } from 'node:os';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
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
