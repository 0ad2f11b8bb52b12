import { round, scaled } from '../bench-support';
import { batchRequests } from '../harness/load-job';
import type { ReceiverMode } from '../harness/receiver.process';
import { ReceiverProcess, runLoad } from '../harness/tools';
import { Context } from './context';
import { openLoop, openLoopSeconds } from './intake';

/**
 * Figure 4: one account's trouble must not reach another. Account A's webhook points at its own
 * receiver process, which (i) answers 200 after 2 s with 400 events queued, then (ii) answers 500
 * with 2,000 events queued; meanwhile account B's events, on another receiver that answers at once,
 * arrive in an open loop and B's ingest → delivery p99 is the figure. A's webhook is deleted after
 * each case (its waiting deliveries are cancelled) so that later figures start clean.
 */
export async function fairness(ctx: Context): Promise<void> {
  const slowReceiver = await ReceiverProcess.start(ctx.run, `${ctx.profile}-receiver-a`);
  const healthyReceiver = await ReceiverProcess.start(ctx.run, `${ctx.profile}-receiver-b`);
  try {
    const a = await ctx.server.createAccount('Bench A (troubled)');
    const b = await ctx.server.createAccount('Bench B (healthy)');
    const hookB = await ctx.server.createWebhook(b.apiKey, `${healthyReceiver.url}/b`, ['contact.created']);
    await healthyReceiver.configure({ secret: hookB.secret });
    const cases = [
      { label: 'slow endpoint (200 after 2 s)', mode: { status: 200, delayMs: 2000 }, queued: scaled(400, 100), rate: 50, limitMs: 250 },
      { label: 'failing endpoint (500)', mode: { status: 500, delayMs: 0 }, queued: scaled(2000, 200), rate: 100, limitMs: 100 },
    ];
    for (const [index, each] of cases.entries()) {
      const result = await oneCase(ctx, { a, b, slowReceiver, healthyReceiver, index, ...each });
      ctx.add({
        figure: 4,
        name: `fairness (${index === 0 ? 'i' : 'ii'}): B at ${each.rate}/s beside A's ${each.label}, B's p99`,
        value: result.p99,
        unit: 'ms',
        target: { kind: 'at-most', value: each.limitMs },
        note: `A: ${each.queued} events queued (${result.attemptsOnA} attempts reached A meanwhile); B: p50 ${result.p50} ms`,
      });
    }
  } finally {
    await ctx.run.stop(slowReceiver.child, 2_000);
    await ctx.run.stop(healthyReceiver.child, 2_000);
  }
}

interface Case {
  a: { id: number; apiKey: string };
  b: { id: number };
  slowReceiver: ReceiverProcess;
  healthyReceiver: ReceiverProcess;
  index: number;
  mode: ReceiverMode;
  queued: number;
  rate: number;
}

async function oneCase(ctx: Context, c: Case): Promise<{ p99: number; p50: number | string; attemptsOnA: number }> {
  await c.slowReceiver.configure({ mode: c.mode });
  await c.slowReceiver.reset();
  const hookA = await ctx.server.createWebhook(c.a.apiKey, `${c.slowReceiver.url}/a`, ['contact.created']);
  try {
    const queued = await runLoad(ctx.run, {
      origin: ctx.server.url,
      method: 'POST',
      paths: ['/internal/events/batch'],
      headers: ctx.internal,
      body: { kind: 'batch', accountId: c.a.id, idPrefix: `evt_fair${c.index}a_`, size: 1000, total: c.queued },
      connections: 1,
      loop: { kind: 'closed', requests: batchRequests(c.queued, 1000) },
    });
    if (queued.accepted !== c.queued) throw new Error(`account A's events were not all accepted: ${JSON.stringify(queued.statuses)} ${queued.sampleError ?? ''}`);
    const { delivered } = await openLoop(ctx, c.healthyReceiver, c.b, c.rate, openLoopSeconds(), `fairness ${c.index === 0 ? 'i' : 'ii'}: account B`);
    const attemptsOnA = (await c.slowReceiver.stats()).received;
    return { p99: delivered.p99 ?? Infinity, p50: delivered.p50 === null ? '∞' : round(delivered.p50), attemptsOnA };
  } finally {
    await ctx.server.deleteWebhook(c.a.apiKey, hookA.id);
  }
}
