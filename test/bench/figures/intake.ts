import { round, SCALE } from '../bench-support';
import type { LoadJob, LoadResult } from '../harness/load-job';
import type { ReceiverStats } from '../harness/receiver.process';
import { LoadGenerator, ReceiverProcess, runLoad, serverErrors, startLoadGenerator } from '../harness/tools';
import { Bracketed, CLOSED_LOOP_WARM_UP, CONNECTIONS, describeBracket, SINGLE_EVENTS } from './baselines';
import { Context, deliveryTimeoutMs } from './context';

/**
 * Figure 2: single POST /internal/events at 64 connections, closed loop, against baseline (b). Like
 * every closed loop it starts warm: untimed single events first (the burst before it ran the batch
 * path, not this one), delivered and booked as a phase of their own, so that the receiver counts
 * only the measured events afterwards. Both loops run on one load generator, which is then as warm
 * as the baseline's (whose warm-up shares its job).
 */
export async function singles(ctx: Context): Promise<void> {
  const generator = await startLoadGenerator(ctx.run);
  try {
    const warmUp = await warmUpSingles(ctx, 'single events, warm-up', generator);
    const total = SINGLE_EVENTS();
    const {
      result: { load, delivered },
      baseline,
    } = await ctx.bracket(
      () => ctx.baselines.intake({ kind: 'event', accountId: 1, idPrefix: 'evt_bare_' }, total, warmUp),
      async () => {
        await ctx.receiver.reset();
        const load = await generator.run(singlesJob(ctx, 'evt_single_', total));
        return { load, delivered: await ctx.receiver.waitFor(load.accepted, deliveryTimeoutMs(total)) };
      },
    );
    record(ctx, load, delivered, baseline);
  } finally {
    await generator.stop();
  }
}

function record(ctx: Context, load: LoadResult, delivered: ReceiverStats, baseline: Bracketed): void {
  ctx.book('single events, 64 connections', load, delivered);
  ctx.add({
    figure: 2,
    name: 'single POST /internal/events, 64 connections',
    value: load.acceptedPerSecond,
    unit: 'req/s',
    baseline: baseline.mean,
    baselineName: '(b) bare node:http',
    target: { kind: 'ratio-at-least', value: 0.3 },
    note: `p50 ${round(load.p50)} ms, p99 ${round(load.p99)} ms, ${serverErrors(load)} answers 5xx or none; ${describeBracket(baseline)}`,
  });
}

const singlesJob = (ctx: Context, idPrefix: string, requests: number): LoadJob => ({
  origin: ctx.server.url,
  method: 'POST',
  paths: ['/internal/events'],
  headers: ctx.internal,
  body: { kind: 'event', accountId: ctx.account.id, idPrefix },
  connections: CONNECTIONS,
  loop: { kind: 'closed', requests },
});

/**
 * CLOSED_LOOP_WARM_UP untimed single events, delivered and booked as `phase`: returns their count.
 * Sent by `generator` when the measured loop that follows runs on it too (warm, like a baseline's).
 */
async function warmUpSingles(ctx: Context, phase: string, generator?: LoadGenerator): Promise<number> {
  const warmUp = CLOSED_LOOP_WARM_UP();
  await ctx.receiver.reset();
  const job = singlesJob(ctx, `evt_${phase.replace(/\W/g, '')}_`, warmUp);
  const warm = generator ? await generator.run(job) : await runLoad(ctx.run, job);
  ctx.book(phase, warm, await ctx.receiver.waitFor(warm.accepted, deliveryTimeoutMs(warmUp)));
  return warmUp;
}

/** Seconds of an open-loop phase: ~10 s at full scale, never under 2 s. */
export const openLoopSeconds = (seconds = 10) => Math.max(2, Math.round(seconds * SCALE * 10) / 10);

/** Sends events for `account` at `rate`/s for `seconds` (open loop) and waits for their deliveries on `receiver`. */
export async function openLoop(ctx: Context, receiver: ReceiverProcess, account: { id: number }, rate: number, seconds: number, phase: string) {
  await receiver.reset();
  const job: LoadJob = {
    origin: ctx.server.url,
    method: 'POST',
    paths: ['/internal/events'],
    headers: ctx.internal,
    body: { kind: 'event', accountId: account.id, idPrefix: `evt_${phase.replace(/\W/g, '')}_` },
    connections: 256,
    openWith: '/health',
    loop: { kind: 'open', rate, seconds },
  };
  const load = await runLoad(ctx.run, job);
  const delivered = await receiver.waitFor(load.accepted, deliveryTimeoutMs(load.accepted));
  ctx.book(phase, load, delivered);
  return { load, delivered };
}

/**
 * Figure 3: open loop at 200 and 1,000 events/s, ingest → delivery p50/p99 (undelivered events count
 * as infinitely late). It starts warm like the closed loops, also when it runs without figure 2.
 */
export async function latency(ctx: Context): Promise<void> {
  await warmUpSingles(ctx, 'open loop, warm-up');
  for (const [rate, limitMs] of [
    [200, 25],
    [1000, 100],
  ] as const) {
    const seconds = openLoopSeconds();
    const { load, delivered } = await openLoop(ctx, ctx.receiver, ctx.account, rate, seconds, `open loop ${rate}/s`);
    ctx.add({
      figure: 3,
      name: `open loop ${rate} events/s: ingest → delivery p99`,
      value: delivered.p99 ?? Infinity,
      unit: 'ms',
      target: { kind: 'at-most', value: limitMs },
      note: `${seconds} s; p50 ${delivered.p50 === null ? '∞' : round(delivered.p50)} ms; intake p99 ${round(load.p99)} ms; ${serverErrors(load)} answers 5xx or none`,
    });
  }
}
