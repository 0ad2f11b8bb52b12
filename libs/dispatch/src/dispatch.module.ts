import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { AccountDeletionFinisher } from '../../accounts/src';
import { AutomationsModule, RunSweeper } from '../../automations/src';
import { DeliverySweeper, EventWebhooksModule } from '../../event-webhooks/src';
import { SendStatusRetentionModule } from '../../send-status/src';
import { RetentionJob } from './retention.job';
import { WorkerHost } from './worker-host';

/**
 * What runs wherever a dispatcher runs: the modules whose work handlers the worker host finds and
 * subscribes, and the schedules (retention purges, delivery sweeper, run sweeper, the end of account
 * deletions; both sweepers take DELIVERY_SWEEP_INTERVAL and DELIVERY_SWEEP_AFTER). The dispatcher app imports
 * it alone; the API app imports it when DISPATCHER_ENABLED (the `npm start` default).
 */
@Module({
  imports: [DiscoveryModule, AutomationsModule, EventWebhooksModule, SendStatusRetentionModule],
  providers: [WorkerHost, RetentionJob, DeliverySweeper, RunSweeper, AccountDeletionFinisher],
})
export class DispatchModule {}
