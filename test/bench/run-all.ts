import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { machineLine } from './bench-support';

/**
 * `npm run bench`: every benchmark of the project, one after the other (they would disturb each
 * other's figures side by side), with a progress line, then docs/benchmarks.md with each one's
 * figures, its baseline from the same run, the ratios and the machine.
 */
const BENCHES: Array<{ name: string; script: string; about: string }> = [
  { name: 'plumbing', script: 'plumbing.bench.js', about: 'queue → consumer → transport on each adapter, against a bare undici + HMAC POST loop (issue 3; targets: ratio ≥ 0.65 NATS + MySQL, ≥ 0.5 embedded).' },
  { name: 'webhooks', script: 'webhooks.bench.js', about: 'event intake, deliveries end to end, latency at a fixed rate, memory with many pending (issue 4).' },
  { name: 'send-status', script: 'send-status.bench.js', about: 'status lookups at 64 connections (baseline: GET /health) and batched reports (issue 5; targets: ≥ 6,000 lookups/s p99 ≤ 20 ms on MySQL, ≥ 5,000 reports/s).' },
  { name: 'trigger', script: 'trigger.bench.js', about: 'POST /hooks/{token} with 1 KB and 256 KB bodies, against a bare Fastify route (issue 6; targets: ≥ 5,000 req/s 1 KB, ≥ 600 req/s 256 KB).' },
];

async function runOne(script: string, onTick: (seconds: number) => void): Promise<{ output: string; code: number | null; seconds: number }> {
  const started = Date.now();
  const child = spawn(process.execPath, [join(__dirname, script)], { env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const ticker = setInterval(() => onTick((Date.now() - started) / 1000), 1000);
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  clearInterval(ticker);
  return { output, code, seconds: (Date.now() - started) / 1000 };
}

async function main(): Promise<void> {
  const only = process.env.BENCH_ONLY?.split(',');
  const selected = BENCHES.filter((b) => !only || only.includes(b.name));
  const sections: string[] = [];
  let failed = false;
  for (const [index, bench] of selected.entries()) {
    const label = `[${index + 1}/${selected.length}] ${bench.name}`;
    const result = await runOne(bench.script, (s) => process.stderr.write(`\r${label}: running ${s.toFixed(0)} s`));
    process.stderr.write(`\r${label}: ${result.code === 0 ? 'done' : `FAILED (exit ${result.code})`} in ${result.seconds.toFixed(0)} s\n`);
    failed ||= result.code !== 0;
    const figures = result.output.split('\n').filter((line) => !/^\s*\{"level"|\[Nest\]/.test(line)).join('\n').trim();
    sections.push(`## ${bench.name}\n\n${bench.about}\n\n\`\`\`\n${figures}\n\`\`\`\n`);
  }
  const document = `# Benchmarks\n\nWritten by \`npm run bench\` on ${new Date().toISOString()}.\nMachine: ${machineLine()}.\nEach bench measures its baseline in the same run; ratios are against it.\n\n${sections.join('\n')}`;
  writeFileSync(join(__dirname, '../../../docs/benchmarks.md'), document);
  process.stderr.write('wrote docs/benchmarks.md\n');
  process.exit(failed ? 1 : 0);
}

void main();
