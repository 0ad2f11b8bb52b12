import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Cron } from '@nestjs/schedule';
import { RunRetentionService } from '../../automations/src';
import { EventRetentionService } from '../../event-webhooks/src';
import { SendStatusRetentionService } from '../../send-status/src';

interface Purge {
  label: string;
  purgeIfFree(shouldStop: () => boolean): Promise<number | null>;
}

/**
 * Runs the retention purges (send status; events with their deliveries and attempts; automation
 * runs) once at start and every day at 03:17 UTC in every dispatcher. Each purge's database lease
 * makes concurrent runs skip rather than fight; shutdown waits for the batch in progress.
 */
@Injectable()
export class RetentionJob implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Retention');
  private readonly purges: Purge[];
  private running: Promise<void> | null = null;
  private startTimer: NodeJS.Timeout | null = null;
  private stopping = false;

  constructor(sendStatus: SendStatusRetentionService, events: EventRetentionService, runs: RunRetentionService) {
    this.purges = [
      { label: 'send records', purgeIfFree: (stop) => sendStatus.purgeIfFree(stop) },
      { label: 'events (with their deliveries)', purgeIfFree: (stop) => events.purgeIfFree(stop) },
      { label: 'automation runs', purgeIfFree: (stop) => runs.purgeIfFree(stop) },
    ];
  }

  onApplicationBootstrap(): void {
    this.startTimer = setTimeout(() => {
      this.startTimer = null;
      void this.run('start');
    }, 0);
  }

  @Cron('17 3 * * *', { name: 'retention', timeZone: 'UTC' })
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
    this.running ??= this.runAll(reason).finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async runAll(reason: string): Promise<void> {
    for (const purge of this.purges) {
      if (this.stopping) return;
      try {
        const purged = await purge.purgeIfFree(() => this.stopping);
        if (purged === null) this.logger.log(`${reason} purge of ${purge.label} skipped: another process holds the lease`);
        else this.logger.log({ msg: `${reason} purge: ${purged} ${purge.label} older than the retention period deleted`, purged });
      } catch (error) {
        this.logger.warn(`${reason} purge of ${purge.label} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
}
