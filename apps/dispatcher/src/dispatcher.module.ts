import { BeforeApplicationShutdown, Inject, Logger, Module, OnApplicationBootstrap } from '@nestjs/common';
import type { AppConfig } from '../../../config/load-config';
import { APP_CONFIG } from '../../../config/config.token';
import { WORK_HANDLERS, WorkHandler, WorkQueue, WorkSubscription } from '../../../libs/kernel/src';
import { AutomationsModule, AutomationStepHandler } from '../../../libs/automations/src';
import { SendStatusRetentionJobModule } from '../../../libs/send-status/src/send-status.module';
import { DeliverySweeperModule, DeliveryWorker, EventWebhooksModule } from '../../../libs/event-webhooks/src';

/**
 * Subscribes every WorkHandler to its queue topic. Runs inside the API process under
 * `npm start`, or alone (any number of copies) under `npm run start:dispatcher`.
 * On shutdown it stops taking work and lets in-flight items finish or releases them.
 */
@Module({
  imports: [AutomationsModule, SendStatusRetentionJobModule, EventWebhooksModule, DeliverySweeperModule],
  providers: [
    {
      provide: WORK_HANDLERS,
      useFactory: (...handlers: WorkHandler[]) => handlers,
      inject: [AutomationStepHandler, DeliveryWorker],
    },
  ],
})
export class DispatcherModule implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Dispatcher');
  private subscriptions: WorkSubscription[] = [];

  constructor(
    @Inject(WORK_HANDLERS) private readonly handlers: WorkHandler[],
    @Inject(WorkQueue) private readonly queue: WorkQueue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    for (const handler of this.handlers) {
      this.subscriptions.push(
        await this.queue.consume(handler.topic, (work) => handler.handle(work), {
          concurrency: handler.maxInFlight ?? this.config.delivery.concurrency,
          spareCapacity: handler.spareCapacity ? () => handler.spareCapacity!() : undefined,
          maxHandlerFailures: this.config.delivery.maxHandlerFailures,
          giveUp: handler.giveUp ? (work, reason) => handler.giveUp!(work, reason) : undefined,
        }),
      );
    }
    this.logger.log(`consuming ${this.handlers.map((h) => h.topic).join(', ') || 'no topics yet'}`);
  }

  async beforeApplicationShutdown(): Promise<void> {
    const subscriptions = this.subscriptions;
    this.subscriptions = [];
    await Promise.all(subscriptions.map((s) => s.stop(this.config.runtime.shutdownGraceMs)));
    this.logger.log('stopped: in-flight work finished or released');
  }
}
