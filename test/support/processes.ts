import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

export const DIST = join(__dirname, '../../dist');

export interface RunningProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code (or signal) once the process has ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts a built entry point (e.g. `apps/api/src/main.js`) with the given environment. */
export function startProcess(entry: string, env: Record<string, string>): RunningProcess {
  const child = spawn(process.execPath, [join(DIST, entry)], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  return { child, output: () => output, exited };
}

export async function waitForOutput(process: RunningProcess, pattern: RegExp, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(process.output())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}; output so far:\n${process.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
