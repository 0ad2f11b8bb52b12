import { DynamicModule, Module, Type } from '@nestjs/common';
import { SendStatusRetentionService } from './send-status-retention.service';
import { SendStatusService } from './send-status.service';

/**
 * The purge alone: what the dispatcher and the operator route need. Its ports (SendRepository,
 * JobLease, UnitOfWork, Clock) and settings come from the global InfrastructureModule.
 */
@Module({
  providers: [SendStatusRetentionService],
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
