import type { AppConfig } from '../../../config/load-config';
import { AccountsService } from '../../../libs/accounts/src';
import { TypeormAccountDeletion } from '../../../libs/adapters/typeorm/src/accounts/typeorm-account-deletion';
import { TypeormAccountRepository, TypeormApiKeyRepository } from '../../../libs/adapters/typeorm/src/accounts/typeorm-account.repository';
import { openDatabase } from '../../../libs/adapters/typeorm/src/data-source.factory';
import { openSecretBox, storedSecrets } from '../../../libs/adapters/typeorm/src/secret-ring';
import { TypeormDatabase } from '../../../libs/adapters/typeorm/src/typeorm-database';
import { Clock, StoredSecrets, SystemClock } from '../../../libs/kernel/src';

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
    return new CliContext(config, await openDatabase(config.storage), new SystemClock());
  }

  get accounts(): AccountsService {
    this.accountsService ??= new AccountsService(new TypeormAccountRepository(this.db), new TypeormApiKeyRepository(this.db), new TypeormAccountDeletion(this.db), this.clock);
    return this.accountsService;
  }

  /** The stored secrets with the server's key ring (refused, like the server, when one opens with no key). */
  async storedSecrets(): Promise<StoredSecrets> {
    return storedSecrets(this.db, await openSecretBox(this.db, this.config.secrets.keys, this.clock.nowMs()));
  }

  async close(): Promise<void> {
    await this.db.dataSource.destroy();
  }
}
