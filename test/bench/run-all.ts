import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { machineLine, SCALE } from './bench-support';
import { benchProfile } from './figures/profile';
import { Run } from './harness/run';
import type { Profile } from './harness/server';
import { FigureRow, LedgerRow, markdown, printFigures, printLedger } from './report';

/**
 * `npm run bench`: the figures of issue 11 measured as an outsider would, over HTTP against the
 * built server processes, with the receiver, the load generator and the baselines in processes of
 * their own; profiles one after the other, never side by side. Prints a table per profile and
 * writes docs/benchmarks.md.
 *
 * BENCH_SCALE (e.g. 0.1) shrinks every count; BENCH_ONLY picks figures (e.g. "1,3"; 7 is always
 * there); BENCH_PROFILES picks profiles (default "sqlite,mysql-nats"); BENCH_OUT writes the
 * document elsewhere (default docs/benchmarks.md); BENCH_SERVER_NODE_ARGS passes node options to the
 * server processes alone (`--cpu-prof --cpu-prof-dir=/tmp/prof` to profile them).
 */
const ALL_FIGURES = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
const PROFILES: Profile[] = ['sqlite', 'mysql-nats'];

function selection(): { figures: Set<number>; profiles: Profile[] } {
  const only = process.env.BENCH_ONLY?.trim();
  const figures = new Set(only ? only.split(',').map((part) => Number(part.trim())) : ALL_FIGURES);
  for (const figure of figures) if (!ALL_FIGURES.includes(figure)) throw new Error(`BENCH_ONLY: unknown figure "${figure}", expected numbers from 1 to 10`);
  const profiles = (process.env.BENCH_PROFILES?.trim() || PROFILES.join(',')).split(',').map((part) => part.trim()) as Profile[];
  for (const profile of profiles) if (!PROFILES.includes(profile)) throw new Error(`BENCH_PROFILES: unknown profile "${profile}", expected ${PROFILES.join(' or ')}`);
  return { figures, profiles };
}

async function main(run: Run): Promise<boolean> {
  const { figures, profiles } = selection();
  const started = new Date();
  const loadAtStart = loadavg()[0];
  console.log(`bench: figures ${[...figures].join(',')} on ${profiles.join(', ')}, BENCH_SCALE=${SCALE}; ${machineLine()}`);
  const rows: FigureRow[] = [];
  const ledger: LedgerRow[] = [];
  let failed = false;
  for (const profile of profiles) {
    const began = Date.now();
    const ctx = await benchProfile(run, profile, figures, (step) => console.error(`[${profile}] ${step} (${((Date.now() - began) / 1000).toFixed(0)} s)`));
    printLedger(ctx.ledger);
    rows.push(...ctx.rows);
    ledger.push(...ctx.ledger);
    failed ||= ctx.failed;
  }
  rows.sort((a, b) => a.figure - b.figure);
  for (const figure of new Set(rows.map((row) => row.figure))) printFigures(`figure ${figure}`, rows.filter((row) => row.figure === figure));
  const header = [
    `Written by \`npm run bench\` on ${started.toISOString()}${SCALE === 1 ? '' : `, at BENCH_SCALE=${SCALE} (counts shrunk: not the figures of record)`}.`,
    `Machine: ${machineLine()}; load average ${loadAtStart.toFixed(2)} at the start, ${loadavg()[0].toFixed(2)} at the end (other work on the machine skews every figure).`,
    '',
    'The server runs as built processes (`dist/apps/api/src/main.js`, plus `dist/apps/dispatcher/src/main.js` on',
    'mysql-nats) configured by environment only; the receiver, the load generator and the baselines are',
    'processes of their own (test/bench/harness). Each baseline is measured right before and right after',
    "the figure it bounds, and the figure's ratio uses their mean (its note gives both: their gap is how far",
    "this machine's speed moved meanwhile); ratios print to three decimals, so that one just under its target",
    "never reads as the target itself. Every figure and every baseline starts once the server's",
    'processes (and on mysql-nats mariadbd and nats-server) have gone quiet, under 5 % of a core. The baselines:',
    '(a) a bare undici + HMAC loop POSTing the same signed envelope to the same receiver, 64 in flight;',
    '(b) a bare node:http server that parses the JSON body and answers 202, at 64 connections, with the',
    "figure's own body; (c) the server's own `GET /health`. Latencies run from the moment an event was due",
    '(its `sentAtMs`) to its arrival at the receiver; an event never delivered counts as infinitely late.',
    'Every closed loop, and its baseline alike, starts after the same untimed warm-up (`CLOSED_LOOP_WARM_UP`:',
    "5,000 requests, or for the burst a warm-up burst of 5,000 events), so that both sides run at Node's",
    'steady state (a bare server after 200 warm-up requests ran at half its speed after 5,000). Figure 3 sends',
    'the same warm-up first (alone, its first half second ran cold: intake p99 16 ms instead of 8 ms at',
    '200/s), and open loops (figures 3 and 4) first open their 256 connections with untimed `GET /health`',
    'requests, as a keep-alive client would have them open.',
    'Server defaults are kept (`LOG_LEVEL=info` included: a log line per request, into a file), with a',
    '`SECRETS_KEY` as production has, `ALLOW_PRIVATE_TARGETS=true` (the receiver is on 127.0.0.1),',
    '`WEBHOOK_DISABLE_AFTER=1000000` (a failing endpoint must stay enabled for figure 4) and trigger rate',
    'limits out of reach (figure 5 measures throughput).',
  ];
  const notes = readFileSync(join(__dirname, '../../../test/bench/notes.md'), 'utf8');
  const document = `${markdown(rows, ledger, header)}\n${notes}`;
  const out = process.env.BENCH_OUT?.trim() || join(__dirname, '../../../docs/benchmarks.md');
  writeFileSync(out, document);
  console.error(`wrote ${out}`);
  return !failed;
}

const run = new Run();
let closing = false;
const finish = async (code: number) => {
  if (closing) return;
  closing = true;
  await run.close().catch((error: unknown) => console.error(`clean-up: ${String(error)}`));
  process.exit(code);
};
process.once('SIGINT', () => void finish(130));
process.once('SIGTERM', () => void finish(143));
main(run).then(
  (ok) => finish(ok ? 0 : 1),
  (error: unknown) => {
    console.error(error);
    return finish(1);
  },
);
