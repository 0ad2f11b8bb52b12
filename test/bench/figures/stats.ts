import { round, scaled } from '../bench-support';
import { batchRequests } from '../harness/load-job';
import { runLoad, serverErrors } from '../harness/tools';
import { Context, deliveryTimeoutMs } from './context';

const DELIVERIES = () => scaled(100_000, 2_000);
const CALLS = () => scaled(500, 50);
const BATCH_SIZE = 1000;

/**
 * Figure 10: `GET /v3/Webhook/{id}/stats` over a webhook of its own account with DELIVERIES()
 * delivered deliveries of the last 24 hours, one call at a time, as a dashboard makes them. The
 * receiver checks that webhook's signatures meanwhile, then the main webhook's again.
 */
export async function webhookStats(ctx: Context): Promise<void> {
  const total = DELIVERIES();
  const account = await ctx.server.createAccount('Bench stats');
  const webhook = await ctx.server.createWebhook(account.apiKey, `${ctx.receiver.url}/stats`, ['contact.created']);
  await ctx.receiver.configure({ secret: webhook.secret });
  try {
    await measure(ctx, account, webhook.id, total);
  } finally {
    await ctx.receiver.configure({ secret: ctx.mainWebhook.secret });
  }
}

async function measure(ctx: Context, account: { id: number; apiKey: string }, webhookId: string, total: number): Promise<void> {
  await ctx.receiver.reset();
  // Just before the first delivery: the window's first hour is counted from the rows.
  const firstCreated = new Date(Date.now() - 1).toISOString();
  const load = await runLoad(ctx.run, {
    origin: ctx.server.url,
    method: 'POST',
    paths: ['/internal/events/batch'],
    headers: ctx.internal,
    body: { kind: 'batch', accountId: account.id, idPrefix: 'evt_stats_', size: BATCH_SIZE, total },
    connections: 4,
    loop: { kind: 'closed', requests: batchRequests(total, BATCH_SIZE) },
  });
  const delivered = await ctx.receiver.waitFor(load.accepted, deliveryTimeoutMs(total));
  ctx.book('stats: deliveries', load, delivered);
  const path = `/v3/Webhook/${webhookId}/stats`;
  const window = await callsOf(ctx, account.apiKey, path);
  ctx.add({
    figure: 10,
    name: 'GET /v3/Webhook/{id}/stats, p99, one call at a time',
    value: window.result.p99,
    unit: 'ms',
    target: { kind: 'at-most', value: 50 },
    note: `default since (24 hours ago, an hour without deliveries); ${window.note}`,
  });
  const exact = await callsOf(ctx, account.apiKey, `${path}?since=${encodeURIComponent(firstCreated)}`);
  ctx.add({
    figure: 10,
    name: 'GET /v3/Webhook/{id}/stats?since= the first delivery, p99, one call at a time',
    value: exact.result.p99,
    unit: 'ms',
    target: { kind: 'none' },
    note: `since ${firstCreated.slice(11, 23)}: that hour counted from the rows; ${exact.note}`,
  });
}

async function callsOf(ctx: Context, apiKey: string, path: string) {
  const stats = await ctx.server.call<{ deliveries: { succeeded: number }; attempts: { total: number } }>('GET', path, { 'api-key': apiKey }, undefined, 200);
  const result = await runLoad(ctx.run, {
    origin: ctx.server.url,
    method: 'GET',
    paths: [path],
    headers: { 'api-key': apiKey },
    body: { kind: 'none' },
    connections: 1,
    loop: { kind: 'closed', requests: CALLS() },
    warmup: 20,
  });
  ctx.countErrors('stats calls', result);
  const note = `${stats.deliveries.succeeded} deliveries and ${stats.attempts.total} attempts in the window; p50 ${round(result.p50)} ms; ${CALLS()} calls, ${serverErrors(result)} answers 5xx or none`;
  return { result, note };
}
