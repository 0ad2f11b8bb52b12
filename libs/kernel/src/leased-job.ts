import { Clock } from './clock';
import { JobLease, newLeaseHolder } from './job-lease';

export interface LeasedJobOptions {
  /** The lease's name: one process runs the job at a time. */
  lease: string;
  /** How often each process tries. */
  intervalMs: number;
  /** How long a run may hold the lease before another process may take it. */
  leaseTtlMs: number;
  /** Names the job in the warning a failed run leaves. */
  label: string;
  logger: { warn(message: unknown): void };
}

/**
 * A job that every process schedules and one runs at a time: every `intervalMs` (and at start when
 * asked), under a JobLease; one run at a time in a process too, and shutdown waits for it.
 */
export class LeasedJob {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;

  constructor(
    private readonly lease: JobLease,
    private readonly clock: Clock,
    private readonly options: LeasedJobOptions,
    /** One run's work, under the lease; returns how much it did. */
    private readonly work: () => Promise<number>,
  ) {}

  start({ runNow }: { runNow: boolean }): void {
    this.timer = setInterval(() => void this.run(), this.options.intervalMs);
    this.timer.unref();
    if (runNow) void this.run();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One run; 0 when another process holds the lease, or when it failed (logged). */
  run(): Promise<number> {
    this.running ??= this.runLeased()
      .catch((error: unknown) => {
        this.options.logger.warn(`${this.options.label} failed: ${error instanceof Error ? error.message : String(error)}`);
        return 0;
      })
      .finally(() => (this.running = null));
    return this.running;
  }

  private async runLeased(): Promise<number> {
    const holder = newLeaseHolder();
    if (!(await this.lease.acquire(this.options.lease, holder, this.clock.now(), this.options.leaseTtlMs))) return 0;
    try {
      return await this.work();
    } finally {
      await this.lease.release(this.options.lease, holder);
    }
  }
}
