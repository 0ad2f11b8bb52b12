import { randomBytes } from 'node:crypto';
import { Pool } from 'undici';
import { drive, freshStorage, json, machineLine, percentile, printTable, round, startApi } from './bench-support';

/**
 * Send-status benchmark: the built API (`dist/apps/api/main.js`, dispatcher in-process) started
 * as a child process on each profile, driven over HTTP from this process.
 *
 * - lookups: GET /v3/Send/{id}/Status at 64 connections (baseline: GET /health in the same run);
 * - reports: POST /internal/sends/events/batch, 1000 reports per call, a few calls in flight.
 *
 * Run: `npm run build && node dist/test/bench/send-status.bench.js`
 * (BENCH_SENDS, BENCH_LOOKUPS, BENCH_REPORT_BATCHES, BENCH_PROFILES=sqlite,mysql-nats).
 */
const SENDS = Number(process.env.BENCH_SENDS ?? 2000);
const LOOKUPS = Number(process.env.BENCH_LOOKUPS ?? 20_000);
const REPORT_BATCHES = Number(process.env.BENCH_REPORT_BATCHES ?? 20);
const BATCH_SIZE = 1000;
const BATCHES_IN_FLIGHT = 4;
const CONNECTIONS = 64;
const PROFILES = (process.env.BENCH_PROFILES ?? 'sqlite,mysql-nats').split(',').map((p) => p.trim());

interface Figures {
  profile: string;
  healthPerSecond: number;
  lookupsPerSecond: number;
  lookupP50: number;
  lookupP99: number;
  reportsPerSecond: number;
  batchP99: number;
}

async function benchProfile(profile: string): Promise<Figures> {
  const kind = profile === 'sqlite' ? 'sqlite' : 'mysql';
  const { storage, drop } = await freshStorage(kind);
  const adminToken = `bench-admin-${randomBytes(8).toString('hex')}`;
  const internalToken = `bench-internal-${randomBytes(8).toString('hex')}`;
  const env: Record<string, string> = {
    ADMIN_TOKEN: adminToken,
    INTERNAL_TOKEN: internalToken,
    STORAGE: storage.kind,
    ...(kind === 'sqlite' ? { SQLITE_PATH: storage.sqlitePath, QUEUE: 'database' } : { DATABASE_URL: storage.databaseUrl!, QUEUE: 'nats', NATS_PREFIX: `bench_${randomBytes(3).toString('hex')}` }),
  };
  const api = await startApi(profile, env);
  const pool = new Pool(api.url, { connections: CONNECTIONS, pipelining: 1 });
  try {
    const admin = { authorization: `Bearer ${adminToken}` };
    const internal = { authorization: `Bearer ${internalToken}` };
    const account = (await json(pool, 'POST', '/admin/accounts', admin, { name: 'Bench' }, 201)) as { id: number; apiKey: string };
    const ids: string[] = new Array(SENDS);
    await drive(SENDS, 16, async (i) => {
      const created = (await json(pool, 'POST', '/internal/sends', internal, { accountId: account.id, email: `r${i}@example.com`, channel: 'api_v3' }, 201)) as { id: string };
      ids[i] = created.id;
    });
    // every send gets a history of a few entries, as a real one would
    for (let i = 0; i < SENDS; i += BATCH_SIZE / 2) {
      const events = ids.slice(i, i + BATCH_SIZE / 2).flatMap((id) => [
        { id, status: 'sent' },
        { id, status: 'deferred', diagCode: '451 4.7.1 Try again later' },
      ]);
      await json(pool, 'POST', '/internal/sends/events/batch', internal, { events }, 202);
    }

    const apiKey = { 'api-key': account.apiKey };
    const health = await drive(LOOKUPS, CONNECTIONS, async () => {
      await json(pool, 'GET', '/health', {});
    });
    const lookups = await drive(LOOKUPS, CONNECTIONS, async (i) => {
      await json(pool, 'GET', `/v3/Send/${ids[(i * 7919) % SENDS]}/Status`, apiKey);
    });

    // reports: each batch carries 1000 reports over SENDS sends (sent, deferred, then final ones)
    const statuses = [
      { status: 'sent' },
      { status: 'deferred', diagCode: '451 4.7.1 Try again later' },
      { status: 'delivered', diagCode: '250 2.0.0 OK' },
      { status: 'bounced', bounceType: 'soft' },
    ];
    const reports = await drive(REPORT_BATCHES, BATCHES_IN_FLIGHT, async (b) => {
      const events = Array.from({ length: BATCH_SIZE }, (_, k) => {
        const n = b * BATCH_SIZE + k;
        return { id: ids[n % SENDS], ...statuses[Math.min(3, Math.floor(b / 4))], at: new Date(Date.UTC(2030, 0, 1) + n).toISOString() };
      });
      const answer = (await json(pool, 'POST', '/internal/sends/events/batch', internal, { events }, 202)) as { results: Array<{ accepted?: boolean }> };
      if (answer.results.some((r) => !r.accepted)) throw new Error('a report was refused');
    });
    return {
      profile,
      healthPerSecond: health.perSecond,
      lookupsPerSecond: lookups.perSecond,
      lookupP50: percentile(lookups.latencies, 50),
      lookupP99: percentile(lookups.latencies, 99),
      reportsPerSecond: reports.perSecond * BATCH_SIZE,
      batchP99: percentile(reports.latencies, 99),
    };
  } finally {
    await pool.close();
    await api.stop();
    await drop();
  }
}

async function main(): Promise<void> {
  console.log(
    `send-status bench: ${SENDS} sends, ${LOOKUPS} lookups at ${CONNECTIONS} connections, ${REPORT_BATCHES} batches of ${BATCH_SIZE} reports ` +
      `(${BATCHES_IN_FLIGHT} in flight); API as a child process with LOG_LEVEL=warn; ${machineLine()}`,
  );
  const results: Figures[] = [];
  for (const profile of PROFILES) results.push(await benchProfile(profile));
  printTable(
    'lookups (GET /v3/Send/{id}/Status) and reports (POST /internal/sends/events/batch)',
    results.map((r) => ({
      profile: r.profile,
      'baseline GET /health req/s': round(r.healthPerSecond, 0),
      'lookups/s': round(r.lookupsPerSecond, 0),
      'lookup p50 ms': round(r.lookupP50),
      'lookup p99 ms': round(r.lookupP99),
      'reports/s': round(r.reportsPerSecond, 0),
      'batch p99 ms': round(r.batchP99),
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
