import { round, scaled, sleep } from '../bench-support';
import { batchRequests } from '../harness/load-job';
import { BenchServer } from '../harness/server';
import { ReceiverProcess, runLoad } from '../harness/tools';
import { Context } from './context';

const FEW = () => scaled(10_000, 1_000);
const MANY = () => scaled(200_000, 20_000);
const WARM_UP = () => scaled(20_000, 4_000);
const SETTLE_MS = 5_000;

/**
 * Figure 8: resident memory of the server process(es) with MANY deliveries waiting vs with FEW.
 * The webhook's receiver takes every request and never answers in time (the server gives up after
 * DELIVERY_TIMEOUT_MS and retries later), so deliveries pile up as they would behind a dead
 * endpoint; nothing is disabled since WEBHOOK_DISABLE_AFTER is out of reach. A fresh server of
 * the same profile, so that what earlier figures left in the heap does not blur the comparison.
 */
export async function memory(ctx: Context): Promise<void> {
  const stalled = await ReceiverProcess.start(ctx.run, `${ctx.profile}-receiver-stalled`);
  const server = new BenchServer(ctx.run, ctx.server.profile);
  try {
    await server.start();
    await stalled.configure({ mode: { status: 200, delayMs: 3_600_000 } });
    const account = await server.createAccount('Bench backlog');
    await server.createWebhook(account.apiKey, `${stalled.url}/stalled`, ['contact.created']);
    const publish = async (accountId: number, idPrefix: string, count: number) => {
      const load = await runLoad(ctx.run, {
        origin: server.url,
        method: 'POST',
        paths: ['/internal/events/batch'],
        headers: { authorization: `Bearer ${server.internalToken}` },
        body: { kind: 'batch', accountId, idPrefix, size: 1000, total: count },
        connections: 4,
        loop: { kind: 'closed', requests: batchRequests(count, 1000) },
      });
      if (load.accepted !== count) throw new Error(`backlog events not all accepted: ${JSON.stringify(load.statuses)} ${load.sampleError ?? ''}`);
    };
    // The heap grows to intake's working set once and never gives it back: warm it with events no
    // webhook subscribes to, so that the comparison is about the backlog, not about the first batches.
    const quiet = await server.createAccount('Bench warm-up');
    await publish(quiet.id, 'evt_warm_', WARM_UP());
    let sent = 0;
    const enqueue = async (upTo: number) => {
      await publish(account.id, `evt_backlog${sent}_`, upTo - sent);
      sent = upTo;
      return settledRss(server);
    };
    const few = await enqueue(FEW());
    const many = await enqueue(MANY());
    const reached = (await stalled.stats()).received;
    ctx.add({
      figure: 8,
      name: `memory: RSS with ${MANY().toLocaleString('en')} deliveries waiting`,
      value: many.total,
      unit: 'MiB',
      baseline: few.total,
      baselineName: `RSS with ${FEW().toLocaleString('en')}`,
      target: { kind: 'ratio-at-most', value: 1.3 },
      note: `RSS from /proc (${many.parts} MiB; with ${FEW()}: ${few.parts}), median of 3 readings from ${SETTLE_MS / 1000} s after the server went quiet, after a warm-up of ${WARM_UP()} events nobody subscribes to; ${reached} requests reached the stalled receiver`,
    });
  } finally {
    await server.stop();
    await ctx.run.stop(stalled.child, 2_000);
  }
}

/**
 * The median of 3 readings a second apart, SETTLE_MS after the server went quiet (it still files the
 * backlog for a few seconds after the last batch is answered, and what it holds then is that work's
 * garbage, not the backlog); the total and each process's share.
 */
async function settledRss(server: BenchServer): Promise<{ total: number; parts: string }> {
  await server.waitQuiet();
  await sleep(SETTLE_MS);
  const readings: Array<Record<string, number>> = [];
  for (let i = 0; i < 3; i++) {
    readings.push(server.rssByProcess());
    await sleep(1_000);
  }
  const sum = (reading: Record<string, number>) => Object.values(reading).reduce((a, b) => a + b, 0);
  const median = readings.sort((a, b) => sum(a) - sum(b))[1];
  return { total: round(sum(median)), parts: Object.entries(median).map(([name, mb]) => `${name} ${round(mb)}`).join(' + ') };
}
