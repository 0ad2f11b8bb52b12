import { DynamicModule, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import type { AppConfig } from '../../../config/load-config';
import { AutomationsModule, RunSweeper, RunSweeperSettings } from '../../automations/src';
import { DeliverySweeperModule, EventWebhooksModule } from '../../event-webhooks/src';
import { SendStatusRetentionModule } from '../../send-status/src/send-status.module';
import { RetentionJob } from './retention.job';
import { WorkerHost, WorkerHostSettings } from './worker-host';

/**
 * What runs wherever a dispatcher runs: the modules whose work handlers the worker host finds and
 * subscribes, and the schedules (retention purges, delivery sweeper, run sweeper; both sweepers
 * take DELIVERY_SWEEP_INTERVAL and DELIVERY_SWEEP_AFTER). The dispatcher app imports
 * it alone; the API app imports it when DISPATCHER_ENABLED (the `npm start` default).
 */
@Module({})
export class DispatchModule {
  static forRoot({ delivery, runtime }: AppConfig): DynamicModule {
    const settings = new WorkerHostSettings(delivery.concurrency, delivery.maxHandlerFailures, runtime.shutdownGraceMs);
    return {
      module: DispatchModule,
      imports: [DiscoveryModule, AutomationsModule, EventWebhooksModule, SendStatusRetentionModule, DeliverySweeperModule],
      providers: [
        { provide: WorkerHostSettings, useValue: settings },
        WorkerHost,
        RetentionJob,
        { provide: RunSweeperSettings, useValue: new RunSweeperSettings(delivery.sweepIntervalMs, delivery.sweepAfterMs) },
        RunSweeper,
      ],
    };
  }
}
