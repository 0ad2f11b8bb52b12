import { DynamicModule, Global, Module } from '@nestjs/common';
import { AccountsModule } from '../../../../libs/accounts/src';
import { AdminTokenGuard, ApiKeyGuard, CredentialCheck, InternalTokenGuard, MetricsTokenGuard } from './guards';
import { OperatorTokens } from './operator-tokens';

/** The guards of every route family and the operator tokens they check, for every area module. */
@Global()
@Module({})
export class HttpAuthModule {
  static forRoot(tokens: OperatorTokens): DynamicModule {
    const guards = [ApiKeyGuard, AdminTokenGuard, InternalTokenGuard, MetricsTokenGuard];
    return {
      module: HttpAuthModule,
      imports: [AccountsModule],
      providers: [{ provide: OperatorTokens, useValue: tokens }, CredentialCheck, ...guards],
      exports: [OperatorTokens, AccountsModule, CredentialCheck, ...guards],
    };
  }
}
