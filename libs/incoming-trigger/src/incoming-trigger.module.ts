import { Module } from '@nestjs/common';
import { AutomationsModule } from '../../automations/src';
import { IncomingTriggerService } from './incoming-trigger.service';

@Module({
  imports: [AutomationsModule],
  providers: [
    IncomingTriggerService,
  ],
  exports: [AutomationsModule, IncomingTriggerService],
})
export class IncomingTriggerModule {}
