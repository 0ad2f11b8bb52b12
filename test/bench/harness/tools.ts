import { join } from 'node:path';
import { pollUntil } from '../bench-support';
import { call } from './ipc';
import type { LoadJob, LoadResult } from './load-job';
import type { ReceiverMode, ReceiverStats } from './receiver.process';
import { Child, Run } from './run';

/** The orchestrator's handles on the harness processes: receivers, the bare intake server, load jobs. */

function whenReady<T>(child: Child, timeoutMs = 15_000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${child.name} did not start:\n${child.tail()}`)), timeoutMs);
    child.process.on('message', (message: { ready?: T }) => {
      if (message.ready === undefined) return;
      clearTimeout(timer);
      resolve(message.ready);
    });
    child.process.once('exit', () => reject(new Error(`${child.name} exited at start:\n${child.tail()}`)));
  });
}

export class ReceiverProcess {
  private constructor(
    readonly child: Child,
    readonly url: string,
  ) {}

  static async start(run: Run, name: string): Promise<ReceiverProcess> {
    const child = run.start(name, join(__dirname, 'receiver.process.js'), {}, { ipc: true });
    const port = await whenReady<number>(child);
    return new ReceiverProcess(child, `http://127.0.0.1:${port}`);
  }

  configure(options: { mode?: Partial<ReceiverMode>; secret?: string | null; sampleEvery?: number }): Promise<void> {
    return call(this.child.process, 'configure', options);
  }

  reset(): Promise<void> {
    return call(this.child.process, 'reset');
  }

  /** Percentiles count the events of `expected` not yet received as infinitely late (null). */
  stats(expected: number | null = null): Promise<ReceiverStats> {
    return call(this.child.process, 'stats', expected);
  }

  /**
   * Waits until `expected` distinct events arrived, or nothing new arrived for `stallMs`, or
   * `timeoutMs` passed; returns the stats then (lost = expected - distinct).
   */
  async waitFor(expected: number, timeoutMs: number, stallMs = 90_000): Promise<ReceiverStats> {
    let last = -1;
    let lastChange = Date.now();
    await pollUntil(async () => {
      const { distinct } = await this.stats();
      if (distinct !== last) {
        last = distinct;
        lastChange = Date.now();
      }
      return distinct >= expected || Date.now() - lastChange > stallMs;
    }, timeoutMs);
    return this.stats(expected);
  }
}

export async function startBareIntake(run: Run): Promise<{ origin: string; child: Child }> {
  const child = run.start('bare-intake', join(__dirname, 'bare-intake.process.js'), {}, { ipc: true });
  const port = await whenReady<number>(child);
  return { origin: `http://127.0.0.1:${port}`, child };
}

/** A load-generator process that runs jobs one after the other (each with connections of its own). */
export interface LoadGenerator {
  run(job: LoadJob): Promise<LoadResult>;
  stop(): Promise<void>;
}

/**
 * Starts a load-generator process kept for several jobs: a job after a warm-up job of the same
 * kind runs on a generator as warm as a baseline's, whose warm-up shares its job.
 */
export async function startLoadGenerator(run: Run): Promise<LoadGenerator> {
  const child = run.start('loadgen', join(__dirname, 'loadgen.process.js'), {}, { ipc: true });
  try {
    await whenReady<boolean>(child);
  } catch (error) {
    await run.stop(child, 2_000);
    throw error;
  }
  return { run: (job) => call<LoadResult>(child.process, 'run', job), stop: () => run.stop(child, 2_000) };
}

/** Runs one load job in a fresh load-generator process and returns its figures. */
export async function runLoad(run: Run, job: LoadJob): Promise<LoadResult> {
  const generator = await startLoadGenerator(run);
  try {
    return await generator.run(job);
  } finally {
    await generator.stop();
  }
}

/** Answers that are 5xx, plus requests that got no answer at all. */
export function serverErrors(result: LoadResult): number {
  return Object.entries(result.statuses).reduce((sum, [status, count]) => (status.startsWith('5') || status === 'error' ? sum + count : sum), 0);
}
