import { Module } from '@nestjs/common';
import { APP_CONFIG } from '../../../config/config.token';
import type { AppConfig } from '../../../config/load-config';
import { WebhookTargetCaller } from './webhook-target-caller';
import { WebhookTargetsService } from './webhook-targets.service';
import { WebhookTargetsSettings } from './webhook-targets.settings';

/** Targets and the send_webhook call; repositories come from the infrastructure module. */
@Module({
  providers: [
    {
      provide: WebhookTargetsSettings,
      useFactory: (config: AppConfig) => new WebhookTargetsSettings(config.delivery.allowPrivateTargets, config.delivery.timeoutMs),
      inject: [APP_CONFIG],
    },
    WebhookTargetsService,
    WebhookTargetCaller,
  ],
  exports: [WebhookTargetsService, WebhookTargetCaller],
})
export class WebhookTargetsModule {}
