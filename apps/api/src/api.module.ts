import { DynamicModule, Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import type { AppConfig } from '../../../config/load-config';
import { AccountsModule } from '../../../libs/accounts/src';
import { AutomationsModule } from '../../../libs/automations/src';
import { InfrastructureModule } from '../../../libs/adapters/infrastructure.module';
import { DispatchModule } from '../../../libs/dispatch/src';
import { SendStatusRetentionModule } from '../../../libs/send-status/src/send-status.module';
import { AdminAccountsController } from './admin/admin-accounts.controller';
import { AdminMaintenanceController } from './admin/admin-maintenance.controller';
import { AutomationsApiModule } from './automations/automations-api.module';
import { EVENT_WEBHOOK_CONTROLLERS } from './event-webhooks';
import { EventWebhooksModule } from '../../../libs/event-webhooks/src';
import { ApiKeyGuard, AdminTokenGuard, InternalTokenGuard, MetricsTokenGuard } from './http/guards';
import { OperatorTokens } from './http/operator-tokens';
import { OpsController } from './ops/ops.controller';
import { SendStatusHttpModule } from './send-status/send-status-http.module';
import { WebModule } from './web/web.module';

export interface ApiModuleOptions {
  config: AppConfig;
  tokens: OperatorTokens;
}

/** The API app: every REST family, operator and producer routes; the dispatcher too when enabled. */
@Module({})
export class ApiModule {
  static forRoot({ config, tokens }: ApiModuleOptions): DynamicModule {
    return {
      module: ApiModule,
      imports: [
        InfrastructureModule.forRoot(config),
        ScheduleModule.forRoot(),
        AccountsModule,
        AutomationsApiModule,
        AutomationsModule,
        EventWebhooksModule,
        SendStatusRetentionModule,
        SendStatusHttpModule.forRoot(tokens, EventWebhooksModule),
        WebModule,
        ...(config.runtime.dispatcherEnabled ? [DispatchModule.forRoot(config)] : []),
      ],
      controllers: [OpsController, AdminAccountsController, AdminMaintenanceController, ...EVENT_WEBHOOK_CONTROLLERS],
      providers: [
        { provide: OperatorTokens, useValue: tokens },
        ApiKeyGuard,
        AdminTokenGuard,
        InternalTokenGuard,
        MetricsTokenGuard,
      ],
    };
  }
}
