import { Module } from '@nestjs/common';
import { WebhookTargetsModule } from '../../webhook-targets/src';
import { AutomationStepHandler } from './automation-step.handler';
import { RunRetentionService } from './run-retention.service';
import { RunsService } from './runs.service';
import { WorkflowsService } from './workflows.service';

/** Workflows, runs and the step worker; the dispatcher subscribes AutomationStepHandler. */
@Module({
  imports: [WebhookTargetsModule],
  providers: [
    WorkflowsService,
    RunsService,
    RunRetentionService,
    AutomationStepHandler,
  ],
  exports: [WebhookTargetsModule, WorkflowsService, RunsService, RunRetentionService, AutomationStepHandler],
})
export class AutomationsModule {}
