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
import { SecretBox } from '../../../kernel/src';
import { WebhookTargetRepository } from '../../../webhook-targets/src';
import { TypeormWebhookTargetRepository } from './automations/typeorm-webhook-target.repository';
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

export const typeormRepositoryProviders: Provider[] = [
  ...REPOSITORIES.map(([port, adapter]) => ({
    provide: port,
    useFactory: (db: TypeormDatabase) => new adapter(db),
    inject: [TypeormDatabase],
  })),
  // It seals what it stores (custom header values), so it takes the SecretBox too.
  { provide: WebhookTargetRepository, useFactory: (db: TypeormDatabase, box: SecretBox) => new TypeormWebhookTargetRepository(db, box), inject: [TypeormDatabase, SecretBox] },
];
