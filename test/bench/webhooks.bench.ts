import { randomBytes } from 'node:crypto';
import { Pool } from 'undici';
import { bareUndiciBaseline, drive, freshStorage, json, machineLine, percentile, printTable, round, startApi, startCountingReceiver } from './bench-support';

/**
 * Event-webhooks benchmark (issue 4), per profile, against the built API (dispatcher in-process)
 * as a child process, beside the plumbing baseline measured in the same run:
 * - events accepted/s through the batch intake (1000 per call) and through single events;
 * - deliveries/s end to end (intake start → every delivery received);
 * - intake→receiver latency p50/p99 at a fixed rate of single events;
 * - API memory with few and with many deliveries waiting (deliveries live in SQL, not in memory).
 * Run: `npm run bench:webhooks` (BENCH_EVENTS, BENCH_RATE, BENCH_PENDING, BENCH_PROFILES).
 */
const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const SINGLES = Number(process.env.BENCH_SINGLES ?? 3000);
const RATE = Number(process.env.BENCH_RATE ?? 1000);
const RATE_SECONDS = 5;
const PENDING = Number(process.env.BENCH_PENDING ?? 50_000);
const WEBHOOKS = 2;
const PROFILES = (process.env.BENCH_PROFILES ?? 'sqlite,mysql-nats').split(',').map((p) => p.trim());
const DATA = { contactId: 9, email: 'zoe@example.org', attributes: { FIRSTNAME: 'Zoë' }, listIds: [3], createdAt: '2025-11-22T02:00:00.000Z' };

interface Figures {
  profile: string;
  batchAccepted: number;
  singleAccepted: number;
  deliveriesPerSecond: number;
  p50: number;
  p99: number;
  rssFewMb: number;
  rssManyMb: number;
}

async function benchProfile(profile: string): Promise<Figures> {
  const kind = profile === 'sqlite' ? 'sqlite' : 'mysql';
  const { storage, drop } = await freshStorage(kind);
  const adminToken = `bench-admin-${randomBytes(8).toString('hex')}`;
  const internalToken = `bench-internal-${randomBytes(8).toString('hex')}`;
  const api = await startApi(profile, {
    ADMIN_TOKEN: adminToken,
    INTERNAL_TOKEN: internalToken,
    ALLOW_PRIVATE_TARGETS: 'true',
    STORAGE: storage.kind,
    ...(kind === 'sqlite'
      ? { SQLITE_PATH: storage.sqlitePath, QUEUE: 'database' }
      : { DATABASE_URL: storage.databaseUrl!, QUEUE: 'nats', NATS_PREFIX: `bench_${randomBytes(3).toString('hex')}` }),
  });
  const pool = new Pool(api.url, { connections: 64 });
  const receiver = await startCountingReceiver();
  try {
    const admin = { authorization: `Bearer ${adminToken}` };
    const internal = { authorization: `Bearer ${internalToken}` };
    const account = (await json(pool, 'POST', '/admin/accounts', admin, { name: 'Bench' }, 201)) as { id: number; apiKey: string };
    for (let i = 0; i < WEBHOOKS; i++) {
      await json(pool, 'POST', '/v3/Webhook', { 'api-key': account.apiKey }, { url: `${receiver.url}/${i}`, events: ['contact.created'] }, 201);
    }
    const event = (id: string) => ({ accountId: account.id, type: 'contact.created', id, data: DATA });
    const run = randomBytes(3).toString('hex');

    // Batch intake, and deliveries end to end for the same events.
    const expected = EVENTS * WEBHOOKS;
    let allDelivered!: () => void;
    const delivered = new Promise<void>((resolve) => (allDelivered = resolve));
    receiver.onRequest = () => {
      if (receiver.received === expected) allDelivered();
    };
    const started = performance.now();
    const batches = Math.ceil(EVENTS / 1000);
    const batch = await drive(batches, 4, async (b) => {
      const events = Array.from({ length: Math.min(1000, EVENTS - b * 1000) }, (_, i) => event(`evt_b${run}_${b}_${i}`));
      await json(pool, 'POST', '/internal/events/batch', internal, { events }, 202);
    });
    const batchAccepted = (batch.perSecond * EVENTS) / batches;
    await delivered;
    const deliveriesPerSecond = expected / ((performance.now() - started) / 1000);

    // Single events, 32 connections.
    const singles = await drive(SINGLES, 32, async (i) => {
      await json(pool, 'POST', '/internal/events', internal, event(`evt_s${run}_${i}`), 202);
    });
    await waitUntil(() => receiver.received >= expected + SINGLES * WEBHOOKS, 120_000);

    // Latency at a fixed rate: one event per request, paced.
    const sentAt = new Map<string, number>();
    const latencies: number[] = [];
    const paced = RATE * RATE_SECONDS;
    receiver.onRequest = (_body, at, request) => {
      const sent = sentAt.get(String(request.headers['x-service-event-id']));
      if (sent !== undefined) latencies.push(at - sent);
    };
    const pacedStart = performance.now();
    const inFlight: Promise<unknown>[] = [];
    for (let i = 0; i < paced; i++) {
      const due = pacedStart + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      const id = `evt_r${run}_${i}`;
      sentAt.set(id, performance.now());
      inFlight.push(json(pool, 'POST', '/internal/events', internal, event(id), 202));
    }
    await Promise.all(inFlight);
    await waitUntil(() => latencies.length >= paced * WEBHOOKS, 120_000);
    latencies.sort((a, b) => a - b);

    // Memory with few vs many deliveries waiting: a webhook whose receiver refuses connections.
    const rssFew = await rssMb(pool);
    await json(pool, 'POST', '/v3/Webhook', { 'api-key': account.apiKey }, { url: 'http://127.0.0.1:9/closed', events: ['contact.updated'] }, 201);
    const updated = { contactId: 9, email: 'zoe@example.org', changed: ['FIRSTNAME'], updatedAt: '2025-11-22T02:00:00.000Z' };
    await drive(Math.ceil(PENDING / 1000), 2, async (b) => {
      const events = Array.from({ length: 1000 }, (_, i) => ({ accountId: account.id, type: 'contact.updated', id: `evt_p${run}_${b}_${i}`, data: updated }));
      await json(pool, 'POST', '/internal/events/batch', internal, { events }, 202);
    });
    await new Promise((resolve) => setTimeout(resolve, 5000));
    const rssMany = await rssMb(pool);

    return {
      profile,
      batchAccepted,
      singleAccepted: singles.perSecond,
      deliveriesPerSecond,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      rssFewMb: rssFew,
      rssManyMb: rssMany,
    };
  } finally {
    await pool.close();
    await receiver.close();
    await api.stop();
    await drop();
  }
}

async function rssMb(pool: Pool): Promise<number> {
  const response = await pool.request({ method: 'GET', path: '/metrics' });
  const text = await response.body.text();
  const match = /^process_resident_memory_bytes (\d+(?:\.\d+)?(?:e\+\d+)?)$/m.exec(text);
  return match ? Number(match[1]) / 2 ** 20 : NaN;
}

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for deliveries');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function main(): Promise<void> {
  console.log(`webhooks bench: ${EVENTS} events × ${WEBHOOKS} webhooks (batch), ${SINGLES} single events, ${RATE}/s for ${RATE_SECONDS} s, ${PENDING} pending; ${machineLine()}`);
  const baseline = await bareUndiciBaseline(5000, 64);
  const figures: Figures[] = [];
  for (const profile of PROFILES) figures.push(await benchProfile(profile));
  printTable('baseline (plumbing): bare undici + HMAC POST loop, 64 in flight', [{ 'requests/s': round(baseline, 0) }]);
  printTable(
    'event webhooks (targets: ≥ 5,000 accepted/s batched; ≥ 3,000 deliveries/s on MySQL + NATS; p99 ≤ 25 ms at 1,000/s)',
    figures.map((f) => ({
      profile: f.profile,
      'batch accepted/s': round(f.batchAccepted, 0),
      'single accepted/s': round(f.singleAccepted, 0),
      'deliveries/s': round(f.deliveriesPerSecond, 0),
      'deliveries/s ÷ baseline': round(f.deliveriesPerSecond / baseline, 2),
      [`p50 ms @${RATE}/s`]: round(f.p50),
      [`p99 ms @${RATE}/s`]: round(f.p99),
      'RSS MB few pending': round(f.rssFewMb),
      [`RSS MB ${PENDING} pending`]: round(f.rssManyMb),
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
