import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Clock, JobLease, newLeaseHolder } from '../../kernel/src';
import { ACCOUNT_DELETION_GRACE_MS, AccountDeletion } from './account-deletion';

/** How often a process looks for deletions to finish (the lease makes it one process at a time). */
export const ACCOUNT_DELETION_FINISH_INTERVAL_MS = 30_000;
const LEASE = 'account-deletion';
const LEASE_TTL_MS = 10 * 60_000;

/**
 * Finishes account deletions once their grace has passed (AccountDeletion.finishDeletions): at
 * start, which also ends a deletion a crash interrupted, and every ACCOUNT_DELETION_FINISH_INTERVAL_MS
 * wherever a dispatcher runs.
 */
@Injectable()
export class AccountDeletionFinisher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('AccountDeletion');
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;

  constructor(
    private readonly deletion: AccountDeletion,
    private readonly lease: JobLease,
    private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.finish(), ACCOUNT_DELETION_FINISH_INTERVAL_MS);
    this.timer.unref();
    void this.finish();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One run (0 when another process holds the lease); returns how many deletions it finished. */
  finish(): Promise<number> {
    this.running ??= this.finishOnce()
      .catch((error: unknown) => {
        this.logger.warn(`finishing account deletions failed: ${error instanceof Error ? error.message : String(error)}`);
        return 0;
      })
      .finally(() => (this.running = null));
    return this.running;
  }

  private async finishOnce(): Promise<number> {
    const holder = newLeaseHolder();
    if (!(await this.lease.acquire(LEASE, holder, this.clock.now(), LEASE_TTL_MS))) return 0;
    try {
      const finished = await this.deletion.finishDeletions(new Date(this.clock.nowMs() - ACCOUNT_DELETION_GRACE_MS));
      if (finished > 0) this.logger.log({ msg: `finished the deletion of ${finished} account(s)`, finished });
      return finished;
    } finally {
      await this.lease.release(LEASE, holder);
    }
  }
}
