import { round, scaled } from '../bench-support';
import type { LoadJob, LoadResult } from '../harness/load-job';
import { runLoad, serverErrors } from '../harness/tools';
import { CLOSED_LOOP_WARM_UP, CONNECTIONS, describeBracket, LARGE_TRIGGER_CALLS, TRIGGER_CALLS } from './baselines';
import { jsonBody, TRIGGER_LIMIT_BYTES } from './bodies';
import { Context } from './context';

const SENDS = () => scaled(2_000, 100);
const LOOKUPS = () => scaled(20_000, 1_000);
const TRIGGER_URLS = 4;

/** Figure 5: status lookups vs GET /health (c), and POST /hooks/{token} vs the bare server (b). */
export async function lookupsAndTriggers(ctx: Context): Promise<void> {
  const account = await ctx.server.createAccount('Bench lookups');
  const ids = await createSends(ctx, account.id);
  const closed = async (phase: string, job: Pick<LoadJob, 'method' | 'paths' | 'headers' | 'body'>, requests: number, warmup = CLOSED_LOOP_WARM_UP()): Promise<LoadResult> => {
    const result = await runLoad(ctx.run, { origin: ctx.server.url, connections: CONNECTIONS, loop: { kind: 'closed', requests }, warmup, ...job });
    ctx.countErrors(phase, result);
    return result;
  };

  const health = await closed('GET /health', { method: 'GET', paths: ['/health'], headers: {}, body: { kind: 'none' } }, LOOKUPS());
  const lookups = await closed('status lookups', { method: 'GET', paths: ids.map((id) => `/v3/Send/${id}/Status`), headers: { 'api-key': account.apiKey }, body: { kind: 'none' } }, LOOKUPS());
  ctx.add({
    figure: 5,
    name: 'GET /v3/Send/{id}/Status, 64 connections',
    value: lookups.okPerSecond,
    unit: 'req/s',
    baseline: health.okPerSecond,
    baselineName: '(c) GET /health',
    target: { kind: 'ratio-at-least', value: 0.5 },
    note: `${ids.length} sends; p50 ${round(lookups.p50)} ms, p99 ${round(lookups.p99)} ms; ${serverErrors(lookups) + serverErrors(health)} answers 5xx or none`,
  });

  const paths = await triggerPaths(ctx, account.apiKey);
  for (const [bytes, calls, warmUp, target] of [
    [1024, TRIGGER_CALLS(), CLOSED_LOOP_WARM_UP(), 0.3],
    [TRIGGER_LIMIT_BYTES, LARGE_TRIGGER_CALLS(), 100, null],
  ] as const) {
    const body = { kind: 'fixed', text: jsonBody(bytes) } as const;
    const { result, baseline } = await ctx.bracket(
      () => ctx.baselines.intake(body, calls, warmUp),
      () => closed(`trigger ${bytes} B`, { method: 'POST', paths, headers: {}, body }, calls, warmUp),
    );
    ctx.add({
      figure: 5,
      name: `POST /hooks/{token}, ${bytes === 1024 ? '1 KB' : '256 KB'} body, 64 connections`,
      value: result.okPerSecond,
      unit: 'req/s',
      baseline: baseline.mean,
      baselineName: '(b) bare node:http',
      target: target === null ? { kind: 'none' } : { kind: 'ratio-at-least', value: target },
      note: `p50 ${round(result.p50)} ms, p99 ${round(result.p99)} ms; ${serverErrors(result)} answers 5xx or none${target === null ? ' (informational)' : ''}; ${describeBracket(baseline)}`,
    });
  }
}

/** Sends with a short history each (sent, then deferred), as real ones have. */
async function createSends(ctx: Context, accountId: number): Promise<string[]> {
  const ids: string[] = [];
  const total = SENDS();
  for (let i = 0; i < total; i += 50) {
    const created = await Promise.all(
      Array.from({ length: Math.min(50, total - i) }, (_, k) =>
        ctx.server.call<{ id: string }>('POST', '/internal/sends', ctx.internal, { accountId, email: `r${i + k}@example.com`, channel: 'api_v3' }, 201),
      ),
    );
    ids.push(...created.map((send) => send.id));
  }
  for (let i = 0; i < ids.length; i += 500) {
    const events = ids.slice(i, i + 500).flatMap((id) => [
      { id, status: 'sent' },
      { id, status: 'deferred', diagCode: '451 4.7.1 Try again later' },
    ]);
    await ctx.server.call('POST', '/internal/sends/events/batch', ctx.internal, { events }, 202);
  }
  return ids;
}

/** Active workflows whose trigger starts a run that waits a day, so runs cost intake only. */
async function triggerPaths(ctx: Context, apiKey: string): Promise<string[]> {
  const paths: string[] = [];
  for (let i = 0; i < TRIGGER_URLS; i++) {
    const headers = { 'api-key': apiKey };
    const workflow = await ctx.server.call<{ id: string }>('POST', '/v3/automations/workflows', headers, { name: `bench ${i}`, trigger: { type: 'incoming_webhook' }, steps: [{ type: 'delay', seconds: 86_400 }] }, 201);
    const active = await ctx.server.call<{ triggerUrl: string }>('POST', `/v3/automations/workflows/${workflow.id}/activate`, headers, {}, 200);
    paths.push(new URL(active.triggerUrl).pathname);
  }
  return paths;
}
