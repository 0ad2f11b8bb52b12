import { Module } from '@nestjs/common';
import { AutomationsModule } from '../../../../libs/automations/src';
import { EventWebhooksModule } from '../../../../libs/event-webhooks/src';
import { SendStatusRetentionModule } from '../../../../libs/send-status/src';
import { OpsController } from '../ops/ops.controller';
import { ShutdownState } from '../ops/shutdown-state';
import { AdminAccountsController } from './admin-accounts.controller';
import { AdminMaintenanceController } from './admin-maintenance.controller';

/** Operators: /admin/accounts*, /admin/maintenance/purge, and /health, /ready, /metrics. */
@Module({
  imports: [AutomationsModule, EventWebhooksModule, SendStatusRetentionModule],
  controllers: [OpsController, AdminAccountsController, AdminMaintenanceController],
  providers: [ShutdownState],
  exports: [ShutdownState],
})
export class AdminHttpModule {}
