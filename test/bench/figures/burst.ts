import { batchRequests } from '../harness/load-job';
import { mariadbQuestions } from '../harness/server';
import { runLoad } from '../harness/tools';
import { BURST_EVENTS, CLOSED_LOOP_WARM_UP, describeBracket } from './baselines';
import { Context, deliveryTimeoutMs } from './context';

const BATCH_SIZE = 1000;
const BATCHES_IN_FLIGHT = 4;

interface BurstResult {
  intakePerSecond: number;
  deliveriesPerSecond: number;
  delivered: number;
  questions: number | null;
  bodyBytes: number;
}

/**
 * One burst: `total` events by /internal/events/batch (1000 per call, 4 calls in flight) to
 * the main account, whose webhook points at the receiver. Deliveries end to end run from the first
 * accepted batch (or first delivery, if earlier) to the last delivery; on MariaDB the global
 * `Questions` counter is read before and after.
 */
async function burstOnce(ctx: Context, phase: string, total = BURST_EVENTS()): Promise<BurstResult> {
  await ctx.receiver.reset();
  const questions = ctx.profile === 'mysql-nats' ? await mariadbQuestions() : null;
  try {
    const before = await questions?.read();
    const load = await runLoad(ctx.run, {
      origin: ctx.server.url,
      method: 'POST',
      paths: ['/internal/events/batch'],
      headers: ctx.internal,
      body: { kind: 'batch', accountId: ctx.account.id, idPrefix: `evt_${phase.replace(/\W/g, '')}_`, size: BATCH_SIZE, total },
      connections: BATCHES_IN_FLIGHT,
      loop: { kind: 'closed', requests: batchRequests(total, BATCH_SIZE) },
    });
    const delivered = await ctx.receiver.waitFor(load.accepted, deliveryTimeoutMs(total));
    const after = await questions?.read();
    ctx.book(phase, load, delivered);
    const start = Math.min(load.firstOkAt ?? Infinity, delivered.firstAt ?? Infinity);
    const seconds = ((delivered.lastAt ?? NaN) - start) / 1000;
    return {
      intakePerSecond: load.acceptedPerSecond,
      deliveriesPerSecond: delivered.distinct / seconds,
      delivered: delivered.distinct,
      bodyBytes: delivered.meanBodyBytes,
      // the second SHOW is itself a question; nothing else of the bench talks to MariaDB meanwhile
      questions: before === undefined || after === undefined ? null : after - before - 1,
    };
  } finally {
    await questions?.close();
  }
}

/** Figures 1 (intake and deliveries end to end), 6 (statements per delivered event, MariaDB) and 9 (scale-out). */
export async function burst(ctx: Context, options: { scaleOut: boolean }): Promise<void> {
  let baselineBodyBytes = 0;
  const deliveryBaseline = async () => {
    const measured = await ctx.baselines.delivery();
    baselineBodyBytes = measured.bodyBytes;
    return measured.perSecond;
  };
  const { result: one, baseline } = await ctx.bracket(deliveryBaseline, async () => {
    await ctx.receiver.configure({ secret: ctx.mainWebhook.secret });
    // Warm like the baseline, which sends CLOSED_LOOP_WARM_UP untimed first: the server has just started.
    await burstOnce(ctx, 'burst, warm-up', CLOSED_LOOP_WARM_UP());
    return burstOnce(ctx, 'burst');
  });
  await ctx.receiver.configure({ secret: ctx.mainWebhook.secret });
  ctx.add({
    figure: 1,
    name: 'burst: batch intake',
    value: one.intakePerSecond,
    unit: 'events/s',
    target: { kind: 'at-least', value: 10_000 },
    note: `${BURST_EVENTS()} events, ${BATCH_SIZE} per call, ${BATCHES_IN_FLIGHT} calls in flight`,
  });
  ctx.add({
    figure: 1,
    name: 'burst: deliveries end to end',
    value: one.deliveriesPerSecond,
    unit: '/s',
    baseline: baseline.mean,
    baselineName: '(a) undici + HMAC loop',
    target: { kind: 'ratio-at-least', value: 0.15 },
    note: `first accepted → last delivered; envelopes of ${Math.round(one.bodyBytes)} B (baseline's ${Math.round(baselineBodyBytes)} B); ${describeBracket(baseline)}`,
  });
  if (one.questions !== null) {
    ctx.add({
      figure: 6,
      name: 'SQL statements per delivered event',
      value: one.questions / one.delivered,
      unit: 'statements',
      target: { kind: 'at-most', value: 5 },
      note: `MariaDB global Questions +${one.questions} over the burst (the whole server, idle polling and other clients of that MariaDB included)`,
    });
  }
  if (!options.scaleOut || ctx.profile !== 'mysql-nats') return;
  const second = await ctx.server.addDispatcher();
  try {
    // The new dispatcher gets the warm-up the first one had.
    await burstOnce(ctx, 'burst, 2 dispatchers, warm-up', CLOSED_LOOP_WARM_UP());
    const two = await burstOnce(ctx, 'burst, 2 dispatchers');
    ctx.add({
      figure: 9,
      name: 'scale-out: deliveries/s with 2 dispatchers',
      value: two.deliveriesPerSecond,
      unit: '/s',
      baseline: one.deliveriesPerSecond,
      baselineName: '1 dispatcher',
      target: { kind: 'ratio-at-least', value: 0.95 },
      note: 'adding one must not make it slower (5 % allowed for noise)',
    });
  } finally {
    await ctx.server.removeDispatcher(second);
  }
}
