import { loadConfig } from '../../config/load-config';
import { UndiciOutboundHttp } from '../../libs/adapters/http/src';
import { createWorkQueue } from '../../libs/adapters/queue.factory';
import { openDatabase } from '../../libs/adapters/typeorm/src/data-source.factory';
import { SystemClock } from '../../libs/kernel/src';
import { generateSecret, signServiceSignature } from '../../libs/signing/src';
import { CountingReceiver, freshStorage, machineLine, percentile, printTable, round, startCountingReceiver } from './bench-support';

/**
 * Plumbing benchmark (issue 3): a bare undici + HMAC POST loop (the baseline), then the same
 * 1 KB payloads through queue → consumer → transport on each adapter, in one run.
 */
const ITEMS = Number(process.env.BENCH_ITEMS ?? 5000);
const CONCURRENCY = 64;
/** Latency is measured apart from throughput, at a fixed rate, one item per transaction. */
const LATENCY_RATE = Number(process.env.BENCH_RATE ?? 200);
const LATENCY_SECONDS = 5;
const PAYLOAD = 'x'.repeat(1024);
const SECRET = generateSecret();

interface Result {
  name: string;
  itemsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
}

async function baseline(): Promise<Result> {
  const receiver = await startCountingReceiver();
  const http = new UndiciOutboundHttp({ timeoutMs: 10_000, allowPrivate: true, userAgent: 'bench', maxConnectionsPerOrigin: CONCURRENCY });
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < ITEMS) {
        next++;
        const sent = performance.now();
        const body = JSON.stringify({ sent, payload: PAYLOAD });
        const result = await http.post({ url: receiver.url, headers: signedHeaders(body), body });
        if (result.status !== 204) throw new Error(`baseline: ${result.error ?? result.status}`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const paced = await atFixedRate(async () => {
    const body = JSON.stringify({ sent: performance.now(), payload: PAYLOAD });
    await http.post({ url: receiver.url, headers: signedHeaders(body), body });
  }, receiver);
  await http.close();
  await receiver.close();
  return { name: 'baseline: undici + HMAC POST loop', itemsPerSecond: ITEMS / seconds, ...paced };
}

/** Sends LATENCY_RATE items/s for LATENCY_SECONDS and returns sent→received percentiles. */
async function atFixedRate(send: () => Promise<unknown>, receiver: CountingReceiver) {
  const latencies: number[] = [];
  const total = LATENCY_RATE * LATENCY_SECONDS;
  let done!: () => void;
  const allReceived = new Promise<void>((resolve) => (done = resolve));
  receiver.onRequest = (body, at) => {
    latencies.push(at - (JSON.parse(body.toString()) as { sent: number }).sent);
    if (latencies.length === total) done();
  };
  const started = performance.now();
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / LATENCY_RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    void send();
  }
  await allReceived;
  latencies.sort((a, b) => a - b);
  return { p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99) };
}

async function throughQueue(name: string, storageKind: 'sqlite' | 'mysql', queueKind: 'database' | 'nats'): Promise<Result> {
  const { storage, drop } = await freshStorage(storageKind);
  const config = loadConfig({
    STORAGE: storage.kind,
    SQLITE_PATH: storage.sqlitePath,
    ...(storage.databaseUrl ? { DATABASE_URL: storage.databaseUrl } : {}),
    QUEUE: queueKind,
    NATS_PREFIX: `bench${Date.now()}`,
  });
  const db = await openDatabase(config.storage);
  const queue = await createWorkQueue(config, db, new SystemClock());
  const receiver = await startCountingReceiver();
  const http = new UndiciOutboundHttp({ timeoutMs: 10_000, allowPrivate: true, userAgent: 'bench', maxConnectionsPerOrigin: CONCURRENCY });
  let done!: () => void;
  const allReceived = new Promise<void>((resolve) => (done = resolve));
  receiver.onRequest = () => {
    if (receiver.received === ITEMS) done();
  };
  const subscription = await queue.consume(
    'bench-plumbing',
    async (work) => {
      const body = JSON.stringify({ sent: work.payload.sent, payload: PAYLOAD });
      const result = await http.post({ url: receiver.url, headers: signedHeaders(body), body });
      return result.status === 204 ? { kind: 'done' } : { kind: 'retry', at: new Date(Date.now() + 1000) };
    },
    { concurrency: CONCURRENCY },
  );
  const started = performance.now();
  for (let i = 0; i < ITEMS; i += 100) {
    const batch = Array.from({ length: Math.min(100, ITEMS - i) }, () => ({ topic: 'bench-plumbing', payload: { sent: performance.now() } }));
    await db.transaction(() => queue.enqueue(batch));
  }
  await allReceived;
  const seconds = (performance.now() - started) / 1000;
  const paced = await atFixedRate(() => db.transaction(() => queue.enqueue([{ topic: 'bench-plumbing', payload: { sent: performance.now() } }])), receiver);
  await subscription.stop(1000);
  await queue.close();
  await http.close();
  await receiver.close();
  await db.dataSource.destroy();
  await drop();
  return { name, itemsPerSecond: ITEMS / seconds, ...paced };
}

function signedHeaders(body: string): Record<string, string> {
  return { 'content-type': 'application/json', 'x-service-signature': signServiceSignature([SECRET], body, Math.floor(Date.now() / 1000)) };
}

async function main(): Promise<void> {
  console.log(`plumbing bench: ${ITEMS} items of 1 KB, ${CONCURRENCY} in flight; ${machineLine()}`);
  process.env.LOG_LEVEL = 'warn';
  const base = await baseline();
  const results = [
    base,
    await throughQueue('QUEUE=database on SQLite', 'sqlite', 'database'),
    await throughQueue('QUEUE=database on MariaDB', 'mysql', 'database'),
    await throughQueue('QUEUE=nats on MariaDB', 'mysql', 'nats'),
  ];
  printTable(
    `items/s (${ITEMS} items, burst) and enqueue→receive latency at ${LATENCY_RATE} items/s`,
    results.map((r) => ({
      path: r.name,
      'items/s': round(r.itemsPerSecond, 0),
      'ratio to baseline': round(r.itemsPerSecond / base.itemsPerSecond, 2),
      'p50 ms': round(r.p50Ms),
      'p99 ms': round(r.p99Ms),
    })),
  );
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
