import type { AppConfig } from '../../../config/load-config';
import { AccountsService } from '../../../libs/accounts/src';
import { TypeormAccountDeletion } from '../../../libs/adapters/sql/src/accounts/typeorm-account-deletion';
import { TypeormAccountRepository, TypeormApiKeyRepository } from '../../../libs/adapters/sql/src/accounts/typeorm-account.repository';
import { migrationsAppliedLine, openDatabase } from '../../../libs/adapters/sql/src/data-source.factory';
import { openSecretBox, storedSecrets } from '../../../libs/adapters/sql/src/secret-ring';
import { TypeormDatabase } from '../../../libs/adapters/sql/src/typeorm-database';
import { TypeormRunRepository } from '../../../libs/adapters/sql/src/automations/typeorm-run.repository';
import { sealClearTargetHeaders } from '../../../libs/adapters/sql/src/automations/typeorm-webhook-target.repository';
import { TypeormEventRepository } from '../../../libs/adapters/sql/src/event-webhooks/typeorm-event.repository';
import { TypeormWebhookStatsRepository } from '../../../libs/adapters/sql/src/event-webhooks/typeorm-webhook-stats.repository';
import { TypeormJobLease } from '../../../libs/adapters/sql/src/job-lease/typeorm-job-lease';
import { TypeormSendRepository } from '../../../libs/adapters/sql/src/send-status/typeorm-send.repository';
import { TypeormUnitOfWork } from '../../../libs/adapters/sql/src/typeorm-unit-of-work';
import { RunRetentionService } from '../../../libs/automations/src';
import { EventRetentionService } from '../../../libs/event-webhooks/src';
import { Clock, EventRetentionPeriod, SystemClock } from '../../../libs/kernel/src';
import { SendStatusSettings, SendStatusRetentionService } from '../../../libs/send-status/src';

/**
 * What CLI commands work with: the same domain services as the HTTP routes, over the same
 * database, built on first use. It opens storage only (no queue): a command needing another
 * service gets a getter here.
 */
export class CliContext {
  private accountsService?: AccountsService;

  private constructor(
    readonly config: AppConfig,
    readonly db: TypeormDatabase,
    readonly clock: Clock,
  ) {}

  static async open(config: AppConfig): Promise<CliContext> {
    // stdout carries the command's one JSON value alone
    const db = await openDatabase(config.storage, (names) => process.stderr.write(`note: ${migrationsAppliedLine(names)}\n`));
    return new CliContext(config, db, new SystemClock());
  }

  get accounts(): AccountsService {
    this.accountsService ??= new AccountsService(new TypeormAccountRepository(this.db), new TypeormApiKeyRepository(this.db), new TypeormAccountDeletion(this.db), this.clock);
    return this.accountsService;
  }

  /** Every retention purge, now (as POST /admin/maintenance/purge): what each removed. */
  async purgeAll(): Promise<{ sendStatus: number; events: number; runs: number }> {
    const lease = new TypeormJobLease(this.db);
    const uow = new TypeormUnitOfWork(this.db);
    const period = new EventRetentionPeriod(this.config.retention.eventDays);
    const sendStatus = new SendStatusRetentionService(new TypeormSendRepository(this.db), lease, uow, this.clock, new SendStatusSettings(this.config.sendStatus.retentionDays));
    return {
      sendStatus: await sendStatus.purgeNow(),
      events: await new EventRetentionService(new TypeormEventRepository(this.db), new TypeormWebhookStatsRepository(this.db), lease, uow, this.clock, period).purgeNow(),
      runs: await new RunRetentionService(new TypeormRunRepository(this.db), lease, uow, this.clock, period).purgeNow(),
    };
  }

  /** The stored secrets with the server's key ring (refused, like the server, when one opens with no key). */
  /**
   * `secrets reseal`: every stored secret to the first key (throwing before any change when one
   * opens with no key), then the custom headers an earlier release kept in clear sealed, and sealed
   * from then on. Returns how many secrets it resealed.
   */
  async resealSecrets(): Promise<number> {
    const box = await openSecretBox(this.db, this.config.secrets.keys, this.clock.nowMs());
    const resealed = await storedSecrets(this.db, box).reseal();
    await sealClearTargetHeaders(this.db, box, this.clock.nowMs());
    return resealed;
  }

  async close(): Promise<void> {
    await this.db.dataSource.destroy();
  }
}
