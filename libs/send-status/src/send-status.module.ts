import { DynamicModule, Module, Type } from '@nestjs/common';
import type { AppConfig } from '../../../config/load-config';
import { APP_CONFIG } from '../../../config/config.token';
import { SendStatusRetentionService } from './send-status-retention.service';
import { SendStatusOptions } from './send-status.options';
import { SendStatusService } from './send-status.service';

/**
 * The purge alone: what the dispatcher and the operator route need. Its ports (SendRepository,
 * JobLease, UnitOfWork, Clock) come from the global InfrastructureModule.
 */
@Module({
  providers: [
    SendStatusRetentionService,
    { provide: SendStatusOptions, useFactory: (config: AppConfig) => new SendStatusOptions(config.sendStatus.retentionDays), inject: [APP_CONFIG] },
  ],
  exports: [SendStatusRetentionService],
})
export class SendStatusRetentionModule {}

/**
 * Sends, reports and lookups. They emit email.* events through the kernel's EventPublisher port;
 * `events` is the module that exports an implementation of it (the app wires event-webhooks in:
 * this lib never imports it).
 */
@Module({})
export class SendStatusModule {
  static forRoot(events: Type<unknown> | DynamicModule): DynamicModule {
    return {
      module: SendStatusModule,
      imports: [SendStatusRetentionModule, events],
      providers: [SendStatusService],
      exports: [SendStatusService, SendStatusRetentionModule],
    };
  }
}
