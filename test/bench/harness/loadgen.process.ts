import { type Dispatcher, Pool } from 'undici';
import { epochMs, percentile, sleep } from '../bench-support';
import { serve } from './ipc';
import { buildBody, LoadJob, LoadResult } from './load-job';

/**
 * The load generator, a process of its own, written with undici (autocannon-like): a closed loop
 * of N connections each sending its next request when the previous answer is read, or an open
 * loop sending at a fixed rate whatever the answers (latency counted from when a request was due,
 * so a slow server cannot hide its queueing).
 */
async function runJob(job: LoadJob): Promise<LoadResult> {
  const pool = new Pool(job.origin, { connections: job.connections, pipelining: 1, keepAliveTimeout: 60_000, headersTimeout: 120_000, bodyTimeout: 120_000 });
  const statuses: Record<string, number> = {};
  const latencies: number[] = [];
  let accepted = 0;
  let firstOkAt: number | null = null;
  let lastOkAt: number | null = null;
  let sampleError: string | null = null;

  const send = async (i: number, dueAt: number, timed: boolean) => {
    const { body, headers, events } = buildBody(job.body, i, dueAt);
    let status = 'error';
    try {
      const response = await exchange(pool, {
        method: job.method,
        path: job.paths[i % job.paths.length],
        headers: { ...job.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body,
      });
      const { text } = response;
      status = String(response.statusCode);
      if (response.statusCode >= 200 && response.statusCode < 300) {
        if (timed) {
          const now = epochMs();
          accepted += events;
          firstOkAt ??= now;
          lastOkAt = now;
        }
      } else {
        sampleError ??= `${response.statusCode} ${text.slice(0, 300)}`;
      }
    } catch (error: unknown) {
      sampleError ??= error instanceof Error ? error.message : String(error);
    }
    if (!timed) return;
    statuses[status] = (statuses[status] ?? 0) + 1;
    latencies.push(epochMs() - dueAt);
  };

  let index = 0;
  if (job.loop.kind === 'closed' && job.warmup) {
    const warm = job.warmup;
    await Promise.all(Array.from({ length: job.connections }, async () => {
      while (index < warm) await send(index++, epochMs(), false);
    }));
  }
  if (job.loop.kind === 'open' && job.openWith) await openEveryConnection(pool, job.connections, job.openWith);
  const firstSentAt = epochMs();
  let requests: number;
  if (job.loop.kind === 'closed') {
    const end = index + job.loop.requests;
    requests = job.loop.requests;
    await Promise.all(Array.from({ length: job.connections }, async () => {
      while (index < end) await send(index++, epochMs(), true);
    }));
  } else {
    requests = Math.round(job.loop.rate * job.loop.seconds);
    const inFlight: Promise<void>[] = [];
    const intervalMs = 1000 / job.loop.rate;
    for (let i = 0; i < requests; i++) {
      const dueAt = firstSentAt + i * intervalMs;
      const wait = dueAt - epochMs();
      if (wait > 1) await sleep(wait);
      inFlight.push(send(i, dueAt, true));
    }
    await Promise.all(inFlight);
  }
  const seconds = (epochMs() - firstSentAt) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  const ok = Object.entries(statuses).reduce((sum, [status, count]) => (status.startsWith('2') ? sum + count : sum), 0);
  return {
    requests,
    statuses,
    accepted,
    seconds,
    okPerSecond: ok / seconds,
    acceptedPerSecond: accepted / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    firstSentAt,
    firstOkAt,
    lastOkAt,
    sampleError,
  };
}

/** Opens every connection of the pool, as a keep-alive client's pool already would be, with untimed GETs of `path`. */
async function openEveryConnection(pool: Pool, connections: number, path: string): Promise<void> {
  let sent = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (sent < connections * 4) {
        sent++;
        await exchange(pool, { method: 'GET', path });
      }
    }),
  );
}

/**
 * One request and its whole answer, through undici's dispatch API: half the CPU of `request()` and
 * `body.text()`, which build a stream and its promises per call. On two cores the generator's CPU
 * is taken from the server it measures, so it should spend as little as it can.
 */
function exchange(pool: Pool, options: Pick<Dispatcher.DispatchOptions, 'method' | 'path' | 'headers' | 'body'>): Promise<{ statusCode: number; text: string }> {
  return new Promise((resolve, reject) => {
    let statusCode = 0;
    const chunks: Buffer[] = [];
    const handler: Dispatcher.DispatchHandler = {
      // undici takes a handler without onRequestStart for one of its older kind
      onRequestStart: () => undefined,
      onResponseStart: (_controller, status) => {
        if (status >= 200) statusCode = status;
      },
      onResponseData: (_controller, chunk) => void chunks.push(chunk),
      onResponseEnd: () => resolve({ statusCode, text: Buffer.concat(chunks).toString('utf8') }),
      onResponseError: (_controller, error) => reject(error),
    };
    try {
      pool.dispatch(options, handler);
    } catch (error) {
      reject(error as Error);
    }
  });
}

serve({ run: (job: LoadJob) => runJob(job) });
process.send!({ ready: true });
