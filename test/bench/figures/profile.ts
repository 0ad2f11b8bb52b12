import { Run } from '../harness/run';
import { BenchServer, Profile } from '../harness/server';
import { ReceiverProcess } from '../harness/tools';
import { BaselineMeter } from './baselines';
import { burst } from './burst';
import { Context } from './context';
import { fairness } from './fairness';
import { latency, singles } from './intake';
import { lookupsAndTriggers } from './lookups';
import { memory } from './memory';
import { webhookStats } from './stats';

/**
 * Every selected figure of one profile, in an order where each starts from a quiet server: the
 * burst (1, 6, 9) first; fairness after the figures a
 * left-over backlog would disturb; memory last, since it leaves a backlog of its own.
 */
export async function benchProfile(run: Run, profile: Profile, selected: Set<number>, progress: (step: string) => void): Promise<Context> {
  progress('receiver and server start');
  const receiver = await ReceiverProcess.start(run, `${profile}-receiver`);
  const server = new BenchServer(run, profile);
  try {
    await server.start();
    const account = await server.createAccount('Bench');
    const webhook = await server.createWebhook(account.apiKey, `${receiver.url}/main`, ['contact.created']);
    await receiver.configure({ secret: webhook.secret });
    const ctx = new Context(run, server, receiver, account, new BaselineMeter(run, receiver), webhook);
    const steps: Array<[number[], string, () => Promise<void>]> = [
      [[1, 6, 9], 'burst', () => burst(ctx, { scaleOut: selected.has(9) })],
      [[2], 'single events', () => singles(ctx)],
      [[3], 'open loop', () => latency(ctx)],
      [[5], 'lookups and triggers', () => lookupsAndTriggers(ctx)],
      [[10], 'webhook stats', () => webhookStats(ctx)],
      [[4], 'fairness', () => fairness(ctx)],
      [[8], 'memory', () => memory(ctx)],
    ];
    for (const [figures, name, step] of steps) {
      if (!figures.some((figure) => selected.has(figure))) continue;
      await server.waitQuiet();
      progress(name);
      try {
        await step();
      } catch (error: unknown) {
        // One broken step must not cost the rest of a long run: it becomes a failed row.
        const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
        console.error(`\n${profile}: ${name} failed: ${String(error)}\nthe server's last output:\n${server.tails()}`);
        ctx.add({ figure: figures[0], name: `${name}: the step failed`, value: null, unit: '', target: { kind: 'at-least', value: 0 }, note: message.replace(/\|/g, '/') });
        ctx.failed = true;
      }
      if (!server.running()) {
        ctx.add({ figure: 7, name: `a server process died during "${name}"`, value: null, unit: '', target: { kind: 'at-least', value: 0 }, note: 'remaining steps skipped' });
        ctx.failed = true;
        console.error(`\n${profile}: a server process died during ${name}:\n${server.tails()}`);
        break;
      }
    }
    summarize(ctx);
    return ctx;
  } finally {
    await server.stop();
    await run.stop(receiver.child, 2_000);
  }
}

/** Figure 7: zero 5xx anywhere, nothing lost, no duplicates without a crash, signatures that verify. */
function summarize(ctx: Context): void {
  const sum = (pick: (row: Context['ledger'][number]) => number) => ctx.ledger.reduce((total, row) => total + pick(row), 0);
  const errors = [...ctx.serverErrors.values()].reduce((a, b) => a + b, 0);
  const worst = [...ctx.serverErrors.entries()].filter(([, count]) => count > 0).map(([phase, count]) => `${phase}: ${count}`);
  ctx.add({ figure: 7, name: '5xx answers (and requests never answered), all phases', value: errors, unit: '', target: { kind: 'at-most', value: 0 }, note: worst.join('; ') });
  ctx.add({ figure: 7, name: 'events accepted but not delivered (lost)', value: sum((row) => row.lost), unit: '', target: { kind: 'at-most', value: 0 }, note: `of ${sum((row) => row.accepted)} accepted` });
  ctx.add({ figure: 7, name: 'duplicate deliveries (no crash in the run)', value: sum((row) => row.duplicates), unit: '', target: { kind: 'at-most', value: 0 } });
  ctx.add({
    figure: 7,
    name: 'sampled signatures that failed to verify',
    value: sum((row) => row.signaturesFailed),
    unit: '',
    target: { kind: 'at-most', value: 0 },
    note: `${sum((row) => row.signaturesChecked)} deliveries checked (both X-Service-Signature and webhook-signature)`,
  });
  ctx.add({ figure: 7, name: 'error lines in the server logs', value: ctx.server.errorLines(), unit: '', target: { kind: 'none' } });
}
