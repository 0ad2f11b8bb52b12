import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Cron } from '@nestjs/schedule';
import { SendStatusRetentionService } from './send-status-retention.service';

/**
 * Runs the retention purge once at start and every day at 03:17 UTC in every dispatcher (in the
 * API process under `npm start`, in each `start:dispatcher` process otherwise). The database
 * lease makes concurrent runs skip rather than fight; shutdown waits for the batch in progress.
 */
@Injectable()
export class SendStatusRetentionJob implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('SendStatusRetention');
  private running: Promise<void> | null = null;
  private startTimer: NodeJS.Timeout | null = null;
  private stopping = false;

  constructor(private readonly retention: SendStatusRetentionService) {}

  onApplicationBootstrap(): void {
    this.startTimer = setTimeout(() => {
      this.startTimer = null;
      void this.run('start');
    }, 0);
  }

  @Cron('17 3 * * *', { name: 'send-status-retention', timeZone: 'UTC' })
  async daily(): Promise<void> {
    await this.run('daily');
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    if (this.startTimer) clearTimeout(this.startTimer);
    await this.running;
  }

  /** One run at a time in this process; returns when it ends. */
  run(reason: string): Promise<void> {
    if (this.stopping) return Promise.resolve();
    this.running ??= this.retention
      .purgeIfFree(() => this.stopping)
      .then((purged) => {
        if (purged === null) this.logger.log(`${reason} purge skipped: another process holds the lease`);
        else this.logger.log(`${reason} purge: ${purged} send records older than the retention period deleted`);
      })
      .catch((error: unknown) => this.logger.warn(`${reason} purge failed: ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }
}
