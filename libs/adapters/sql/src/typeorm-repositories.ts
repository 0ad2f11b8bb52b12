import { Provider } from '@nestjs/common';
import { AccountDeletion, AccountRepository, ApiKeyRepository } from '../../../accounts/src';
import { TypeormAccountDeletion } from './accounts/typeorm-account-deletion';
import { TypeormAccountRepository, TypeormApiKeyRepository } from './accounts/typeorm-account.repository';
import { TypeormDatabase } from './typeorm-database';
import { AUTOMATION_REPOSITORIES } from './automations';
import { EVENT_WEBHOOK_REPOSITORIES } from './event-webhooks';
import { SendRepository } from '../../../send-status/src/send.repository';
import { TypeormSendRepository } from './send-status/typeorm-send.repository';
import { JobLease } from '../../../kernel/src/job-lease';
import { TypeormJobLease } from './job-lease/typeorm-job-lease';

type RepositoryAdapter = new (db: TypeormDatabase) => object;

/** Port -> TypeORM adapter. Registering a repository is one line here. */
const REPOSITORIES: Array<[abstract new (...args: never[]) => object, RepositoryAdapter]> = [
  [AccountRepository, TypeormAccountRepository],
  [ApiKeyRepository, TypeormApiKeyRepository],
  [AccountDeletion, TypeormAccountDeletion],
  ...AUTOMATION_REPOSITORIES,
  ...EVENT_WEBHOOK_REPOSITORIES,
  [SendRepository, TypeormSendRepository],
  [JobLease, TypeormJobLease],
];

export const typeormRepositoryProviders: Provider[] = REPOSITORIES.map(([port, adapter]) => ({
  provide: port,
  useFactory: (db: TypeormDatabase) => new adapter(db),
  inject: [TypeormDatabase],
}));
