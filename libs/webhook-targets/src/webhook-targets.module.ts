import { Module } from '@nestjs/common';
import { WebhookTargetCaller } from './webhook-target-caller';
import { WebhookTargetsService } from './webhook-targets.service';

/** Targets and the send_webhook call; repositories and settings come from the infrastructure module. */
@Module({
  providers: [
    WebhookTargetsService,
    WebhookTargetCaller,
  ],
  exports: [WebhookTargetsService, WebhookTargetCaller],
})
export class WebhookTargetsModule {}
