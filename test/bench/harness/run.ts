import { ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Leftover, leftoverKey, removeLeftover } from './cleanup';

/** A process started by the bench: its pid, its output file, and how to stop it. */
export interface Child {
  name: string;
  process: ChildProcess;
  pid: number;
  /** Resolves once the process has exited. */
  exited: Promise<void>;
  /** The last lines of its stdout and stderr. */
  tail(lines?: number): string;
}

/**
 * One bench run's bookkeeping: every process, database, stream and temp dir it creates is
 * registered here and with the janitor, so that all of it goes away whatever happens.
 */
export class Run {
  readonly dir: string;
  private readonly janitor: ChildProcess;
  private readonly leftovers = new Map<string, Leftover>();
  private readonly children: Child[] = [];

  constructor() {
    this.janitor = spawn(process.execPath, [join(__dirname, 'janitor.process.js')], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'], detached: true });
    this.janitor.unref();
    this.janitor.channel?.unref();
    this.dir = mkdtempSync(join(tmpdir(), 'wh-bench-'));
    this.track({ kind: 'dir', path: this.dir });
  }

  track(item: Leftover): void {
    this.leftovers.set(leftoverKey(item), item);
    if (this.janitor.connected) this.janitor.send({ add: item });
  }

  async undo(item: Leftover): Promise<void> {
    await removeLeftover(item);
    this.leftovers.delete(leftoverKey(item));
    if (this.janitor.connected) this.janitor.send({ forget: item });
  }

  /** Starts `node script` with exactly `env` (plus PATH); output goes to a file in the run's dir. */
  start(name: string, script: string, env: Record<string, string>, options: { ipc?: boolean; nodeArgs?: string[] } = {}): Child {
    const logPath = join(this.dir, `${name}.log`);
    const log = openSync(logPath, 'a');
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), script], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', log, log, ...(options.ipc ? (['ipc'] as const) : [])],
    });
    closeSync(log);
    if (child.pid === undefined) throw new Error(`could not start ${name}`);
    const pid = child.pid;
    this.track({ kind: 'process', pid });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const started: Child = {
      name,
      process: child,
      pid,
      exited,
      tail: (lines = 20) => {
        try {
          return readFileSync(logPath, 'utf8').split('\n').slice(-lines).join('\n');
        } catch {
          return '';
        }
      },
    };
    this.children.push(started);
    return started;
  }

  /** SIGTERM (SIGKILL after `graceMs`), then forgets the process. */
  async stop(child: Child, graceMs = 10_000): Promise<void> {
    if (child.process.exitCode === null && child.process.signalCode === null) {
      child.process.kill('SIGTERM');
      const timer = setTimeout(() => child.process.kill('SIGKILL'), graceMs);
      await child.exited;
      clearTimeout(timer);
    }
    await this.undo({ kind: 'process', pid: child.pid });
  }

  /** Kills every process still running, then removes databases, streams and dirs. Never throws. */
  async close(): Promise<void> {
    const items = [...this.leftovers.values()];
    const processes = items.filter((item) => item.kind === 'process');
    for (const item of processes) await this.undo(item).catch(() => undefined);
    await Promise.all(this.children.map((child) => Promise.race([child.exited, new Promise((resolve) => setTimeout(resolve, 5_000))])));
    for (const item of items.filter((item) => item.kind !== 'process')) {
      await this.undo(item).catch((error: unknown) => console.warn(`could not remove ${leftoverKey(item)}: ${String(error)}`));
    }
    this.janitor.disconnect();
  }
}
