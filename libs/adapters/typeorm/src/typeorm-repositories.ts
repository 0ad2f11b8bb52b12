import { Provider } from '@nestjs/common';
import { AccountRepository, ApiKeyRepository } from '../../../accounts/src';
import { TypeormAccountRepository, TypeormApiKeyRepository } from './accounts/typeorm-account.repository';
import { TypeormDatabase } from './typeorm-database';

type RepositoryAdapter = new (db: TypeormDatabase) => object;

/** Port -> TypeORM adapter. Registering a repository is one line here. */
const REPOSITORIES: Array<[abstract new (...args: never[]) => object, RepositoryAdapter]> = [
  [AccountRepository, TypeormAccountRepository],
  [ApiKeyRepository, TypeormApiKeyRepository],
];

export const typeormRepositoryProviders: Provider[] = REPOSITORIES.map(([port, adapter]) => ({
  provide: port,
  useFactory: (db: TypeormDatabase) => new adapter(db),
  inject: [TypeormDatabase],
}));
