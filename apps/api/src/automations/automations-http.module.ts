import { Module } from '@nestjs/common';
import { IncomingTriggerModule } from '../../../../libs/incoming-trigger/src';
import { HooksRoute } from './hooks.route';
import { WebhookTargetsController } from './webhook-targets.controller';
import { WorkflowsController } from './workflows.controller';

/** /v3/automations/* (webhook targets, workflows, runs) and POST /hooks/{token}. */
@Module({
  imports: [IncomingTriggerModule],
  controllers: [WebhookTargetsController, WorkflowsController],
  providers: [HooksRoute],
})
export class AutomationsHttpModule {}
