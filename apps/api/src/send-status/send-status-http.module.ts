import { DynamicModule, Module, Type } from '@nestjs/common';
import { AccountsModule } from '../../../../libs/accounts/src';
import { SendStatusModule } from '../../../../libs/send-status/src';
import { AdminTokenGuard, ApiKeyGuard, InternalTokenGuard } from '../http/guards';
import { OperatorTokens } from '../http/operator-tokens';
import { AdminSendStatusController } from './admin-send-status.controller';
import { InternalSendsController } from './internal-sends.controller';
import { SendStatusLookupController } from './send-status-lookup.controller';

/**
 * The send-status routes: /internal/sends*, /v3/Send/{id}/Status, /v2/send/{id}/status.json and
 * /admin/maintenance/purge-send-status. The guards need the operator tokens, and the lib the
 * module that provides the EventPublisher port (event-webhooks), both handed in by ApiModule.
 */
@Module({})
export class SendStatusHttpModule {
  static forRoot(tokens: OperatorTokens, events: Type<unknown> | DynamicModule): DynamicModule {
    return {
      module: SendStatusHttpModule,
      imports: [SendStatusModule.forRoot(events), AccountsModule],
      controllers: [InternalSendsController, SendStatusLookupController, AdminSendStatusController],
      providers: [{ provide: OperatorTokens, useValue: tokens }, ApiKeyGuard, AdminTokenGuard, InternalTokenGuard],
    };
  }
}
