import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Clock, JobLease, LeasedJob } from '../../kernel/src';
import { ACCOUNT_DELETION_GRACE_MS, AccountDeletion } from './account-deletion';

/** How often a process looks for deletions to finish (the lease makes it one process at a time). */
export const ACCOUNT_DELETION_FINISH_INTERVAL_MS = 30_000;

/**
 * Finishes account deletions once their grace has passed (AccountDeletion.finishDeletions): at
 * start, which also ends a deletion a crash interrupted, and every ACCOUNT_DELETION_FINISH_INTERVAL_MS
 * wherever a dispatcher runs.
 */
@Injectable()
export class AccountDeletionFinisher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('AccountDeletion');
  private readonly job: LeasedJob;

  constructor(
    private readonly deletion: AccountDeletion,
    lease: JobLease,
    private readonly clock: Clock,
  ) {
    const options = { lease: 'account-deletion', intervalMs: ACCOUNT_DELETION_FINISH_INTERVAL_MS, leaseTtlMs: 10 * 60_000, label: 'finishing account deletions', logger: this.logger };
    this.job = new LeasedJob(lease, clock, options, () => this.finishDue());
  }

  onApplicationBootstrap(): void {
    this.job.start({ runNow: true });
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.job.stop();
  }

  /** One run (0 when another process holds the lease); returns how many deletions it finished. */
  finish(): Promise<number> {
    return this.job.run();
  }

  private async finishDue(): Promise<number> {
    const finished = await this.deletion.finishDeletions(new Date(this.clock.nowMs() - ACCOUNT_DELETION_GRACE_MS));
    if (finished > 0) this.logger.log({ msg: `finished the deletion of ${finished} account(s)`, finished });
    return finished;
  }
}
