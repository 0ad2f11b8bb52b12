import { Module } from '@nestjs/common';
import { EventWebhooksModule } from '../../../../libs/event-webhooks/src';
import { SendStatusModule } from '../../../../libs/send-status/src';
import { AdminSendStatusController } from './admin-send-status.controller';
import { InternalSendsController } from './internal-sends.controller';
import { SendStatusLookupController } from './send-status-lookup.controller';

/**
 * The send-status routes: /internal/sends*, /v3/Send/{id}/Status, /v2/send/{id}/status.json and
 * /admin/maintenance/purge-send-status. The lib emits email.* events through the EventPublisher
 * port; event-webhooks provides it (the lib never imports it).
 */
@Module({
  imports: [SendStatusModule.forRoot(EventWebhooksModule)],
  controllers: [InternalSendsController, SendStatusLookupController, AdminSendStatusController],
})
export class SendStatusHttpModule {}
