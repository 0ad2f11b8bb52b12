import 'reflect-metadata';
import Fastify from 'fastify';
import { randomBytes } from 'node:crypto';
import { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { createApiApp } from '../../apps/api/src/create-api-app';
import { OperatorTokens } from '../../apps/api/src/http/operator-tokens';
import { loadConfig } from '../../config/load-config';
import { createLogger } from '../../libs/adapters/logging/logger';
import { TRIGGER_BODY_LIMIT_BYTES } from '../../libs/incoming-trigger/src';
import { freshStorage, machineLine, percentile, printTable, round } from './bench-support';

/**
 * Trigger intake benchmark: POST /hooks/{token} with bodies of the 256 KB limit.
 *
 * - baseline: a bare Fastify server with the same body handling (string parser, route bodyLimit,
 *   one JSON.parse) answering 202 without storing anything: the floor the service stands on;
 * - service: the API (dispatcher off, as `npm run start:api`) on each storage profile: rate limit,
 *   token lookup, parse, run row + queue item in one transaction;
 * - body costs: what the intake does with one 256 KB body (parse once, keep the text) beside what
 *   parsing into an object and serialising it back for storage would cost.
 *
 * Build and run: `npm run build && node dist/test/bench/trigger.bench.js` (BENCH_REQUESTS, BENCH_PROFILES).
 */
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const CONCURRENCY = 64;
/** Spread over many trigger URLs so the per-URL rate limit (burst 60) does not cap the run. */
const WORKFLOWS = Math.ceil(REQUESTS / 50);
const PROFILES = (process.env.BENCH_PROFILES ?? 'sqlite,mysql').split(',');

/** A realistic JSON document of exactly `bytes` bytes (orders with nested items and text). */
function jsonBody(bytes: number): string {
  const orders: unknown[] = [];
  let text = '';
  for (let i = 0; ; i++) {
    orders.push({ id: `o-${i}`, total: i * 1.25, paid: i % 2 === 0, customer: { name: `Customer ${i}`, email: `c${i}@example.com` }, items: [{ sku: `SKU-${i}`, qty: i % 5, note: 'é "quoted" ✓' }] });
    const next = JSON.stringify({ orders, pad: '' });
    if (Buffer.byteLength(next) > bytes - 64) break;
    text = next;
  }
  const base = JSON.parse(text) as { orders: unknown[]; pad: string };
  base.pad = 'x'.repeat(bytes - Buffer.byteLength(text));
  const body = JSON.stringify(base);
  if (Buffer.byteLength(body) !== bytes) throw new Error(`body is ${Buffer.byteLength(body)} bytes, wanted ${bytes}`);
  return body;
}

interface Result {
  name: string;
  'req/s': number;
  'MB/s': number;
  'p50 ms': number;
  'p99 ms': number;
}

async function load(name: string, origin: string, paths: string[], body: string): Promise<Result> {
  const agent = new Agent({ connections: CONCURRENCY, pipelining: 1 });
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS) {
        const i = next++;
        const sent = performance.now();
        const response = await request(origin + paths[i % paths.length], { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json' }, body });
        await response.body.dump();
        if (response.statusCode !== 202) throw new Error(`${name}: HTTP ${response.statusCode}`);
        latencies.push(performance.now() - sent);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await agent.close();
  latencies.sort((a, b) => a - b);
  return {
    name,
    'req/s': round(REQUESTS / seconds),
    'MB/s': round((REQUESTS * Buffer.byteLength(body)) / seconds / 2 ** 20),
    'p50 ms': round(percentile(latencies, 50), 2),
    'p99 ms': round(percentile(latencies, 99), 2),
  };
}

async function baseline(body: string): Promise<Result> {
  const fastify = Fastify({ logger: false });
  fastify.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: TRIGGER_BODY_LIMIT_BYTES }, (_r, text, done) => done(null, text));
    scope.post('/hooks/:token', { bodyLimit: TRIGGER_BODY_LIMIT_BYTES }, async (req, reply) => {
      JSON.parse(req.body as string);
      return reply.status(202).send({ runId: 'run_x' });
    });
  });
  await fastify.listen({ port: 0, host: '127.0.0.1' });
  const origin = `http://127.0.0.1:${(fastify.server.address() as AddressInfo).port}`;
  const result = await load('baseline: bare Fastify, same parser, no storage', origin, ['/hooks/x'], body);
  await fastify.close();
  return result;
}

async function service(kind: 'sqlite' | 'mysql', body: string): Promise<Result> {
  const storage = await freshStorage(kind);
  const env: Record<string, string> = {
    ADMIN_TOKEN: 'bench-admin-token-' + randomBytes(8).toString('hex'),
    INTERNAL_TOKEN: 'bench-internal-token-' + randomBytes(8).toString('hex'),
    LOG_LEVEL: 'warn',
    DISPATCHER_ENABLED: 'false',
    ...(kind === 'sqlite'
      ? { STORAGE: 'sqlite', SQLITE_PATH: storage.storage.sqlitePath, QUEUE: 'database' }
      : { STORAGE: 'mysql', DATABASE_URL: storage.storage.databaseUrl!, QUEUE: 'nats', NATS_PREFIX: `bench_${randomBytes(4).toString('hex')}` }),
  };
  const config = loadConfig(env);
  const app = await createApiApp({ config, tokens: new OperatorTokens(config.auth.adminToken!, config.auth.internalToken!), logger: createLogger('warn') });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const origin = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  const call = async (method: string, path: string, payload: unknown, headers: Record<string, string>) => {
    const response = await request(origin + path, { method: method as 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(payload) });
    return (await response.body.json()) as Record<string, string>;
  };
  const { apiKey } = await call('POST', '/admin/accounts', { name: 'Bench' }, { authorization: `Bearer ${config.auth.adminToken}` });
  const paths: string[] = [];
  for (let i = 0; i < WORKFLOWS; i++) {
    const workflow = await call('POST', '/v3/automations/workflows', { name: `w${i}`, trigger: { type: 'incoming_webhook' }, steps: [{ type: 'delay', seconds: 86_400 }] }, { 'api-key': apiKey });
    const activated = await call('POST', `/v3/automations/workflows/${workflow.id}/activate`, {}, { 'api-key': apiKey });
    paths.push(new URL(activated.triggerUrl).pathname);
  }
  const label = kind === 'sqlite' ? 'service: SQLite + database queue' : 'service: MariaDB + NATS (outbox)';
  const result = await load(label, origin, paths, body);
  await app.close();
  await storage.drop();
  return result;
}

function bodyCosts(body: string): Array<Record<string, string | number>> {
  const rounds = 200;
  const time = (fn: () => unknown) => {
    for (let i = 0; i < 20; i++) fn();
    const started = performance.now();
    for (let i = 0; i < rounds; i++) fn();
    return round((performance.now() - started) / rounds, 3);
  };
  const buffer = Buffer.from(body);
  return [
    { 'per 256 KB body': 'intake: JSON.parse once, keep the text', 'ms/op': time(() => JSON.parse(body)) },
    { 'per 256 KB body': 'parse to object, then JSON.stringify for storage', 'ms/op': time(() => JSON.stringify(JSON.parse(body))) },
    { 'per 256 KB body': 'buffer body: Buffer -> string -> parse (+ copy to keep text)', 'ms/op': time(() => JSON.parse(buffer.toString('utf8')) && buffer.toString('utf8')) },
  ];
}

async function main(): Promise<void> {
  console.log(`Trigger intake: ${REQUESTS} POSTs per size, ${CONCURRENCY} in flight, ${WORKFLOWS} trigger URLs. ${machineLine()}`);
  const results: Result[] = [];
  for (const size of [1024, TRIGGER_BODY_LIMIT_BYTES]) {
    const body = jsonBody(size);
    const label = (result: Result) => ({ ...result, name: `${Buffer.byteLength(body)} B: ${result.name}` });
    results.push(label(await baseline(body)));
    for (const profile of PROFILES) results.push(label(await service(profile === 'mysql' ? 'mysql' : 'sqlite', body)));
  }
  printTable('Throughput and latency (client-measured, request sent -> 202 read)', results as unknown as Array<Record<string, string | number>>);
  printTable('Body handling cost', bodyCosts(jsonBody(TRIGGER_BODY_LIMIT_BYTES)));
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
