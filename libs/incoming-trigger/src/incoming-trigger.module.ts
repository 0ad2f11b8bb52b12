import { Module } from '@nestjs/common';
import { APP_CONFIG } from '../../../config/config.token';
import type { AppConfig } from '../../../config/load-config';
import { AutomationsModule } from '../../automations/src';
import { IncomingTriggerService } from './incoming-trigger.service';
import { IncomingTriggerSettings } from './incoming-trigger.settings';

@Module({
  imports: [AutomationsModule],
  providers: [
    {
      provide: IncomingTriggerSettings,
      useFactory: (config: AppConfig) =>
        new IncomingTriggerSettings(config.http.publicBaseUrl, { burst: config.triggers.rateLimitBurst, perSecond: config.triggers.rateLimitPerSecond }),
      inject: [APP_CONFIG],
    },
    IncomingTriggerService,
  ],
  exports: [AutomationsModule, IncomingTriggerService, IncomingTriggerSettings],
})
export class IncomingTriggerModule {}
