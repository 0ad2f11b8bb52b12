import { Module } from '@nestjs/common';
import { APP_CONFIG } from '../../../config/config.token';
import type { AppConfig } from '../../../config/load-config';
import { WebhookTargetsModule } from '../../webhook-targets/src';
import { AutomationStepHandler } from './automation-step.handler';
import { AutomationsSettings } from './automations.settings';
import { RunRetentionService } from './run-retention.service';
import { RunsService } from './runs.service';
import { WorkflowsService } from './workflows.service';

/** Workflows, runs and the step worker; the dispatcher subscribes AutomationStepHandler. */
@Module({
  imports: [WebhookTargetsModule],
  providers: [
    {
      provide: AutomationsSettings,
      useFactory: (config: AppConfig) => new AutomationsSettings(config.delivery.targetRetryScheduleMs),
      inject: [APP_CONFIG],
    },
    WorkflowsService,
    RunsService,
    RunRetentionService,
    AutomationStepHandler,
  ],
  exports: [WebhookTargetsModule, WorkflowsService, RunsService, RunRetentionService, AutomationStepHandler],
})
export class AutomationsModule {}
