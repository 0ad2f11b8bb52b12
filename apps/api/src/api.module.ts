import { DynamicModule, Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import type { AppConfig } from '../../../config/load-config';
import { InfrastructureModule } from '../../../libs/adapters/infrastructure.module';
import { DispatchModule } from '../../../libs/dispatch/src';
import { AdminHttpModule } from './admin/admin-http.module';
import { AutomationsHttpModule } from './automations/automations-http.module';
import { EventWebhooksHttpModule } from './event-webhooks/event-webhooks-http.module';
import { HttpAuthModule } from './http/http-auth.module';
import { OperatorTokens } from './http/operator-tokens';
import { SendStatusHttpModule } from './send-status/send-status-http.module';
import { WebModule } from './web/web.module';

export interface ApiModuleOptions {
  config: AppConfig;
  tokens: OperatorTokens;
}

/**
 * The API app: one module per area of routes (each imports the domain module it serves), the
 * guards for all of them, and the dispatcher too when enabled.
 */
@Module({})
export class ApiModule {
  static forRoot({ config, tokens }: ApiModuleOptions): DynamicModule {
    return {
      module: ApiModule,
      imports: [
        InfrastructureModule.forRoot(config),
        HttpAuthModule.forRoot(tokens),
        ScheduleModule.forRoot(),
        EventWebhooksHttpModule,
        SendStatusHttpModule,
        AutomationsHttpModule,
        AdminHttpModule,
        WebModule,
        ...(config.runtime.dispatcherEnabled ? [DispatchModule] : []),
      ],
    };
  }
}
