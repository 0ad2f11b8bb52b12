import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { NoBody, TakesNoBody } from '../http/no-body';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RunRetentionService } from '../../../../libs/automations/src';
import { EventRetentionService } from '../../../../libs/event-webhooks/src';
import { SendStatusRetentionService } from '../../../../libs/send-status/src';
import { AdminAuth } from '../http/route-auth';
import { ApiErrors } from '../openapi/api-errors';
import { PurgeView } from './admin.dto';

@ApiTags('admin')
@AdminAuth()
@Controller('admin/maintenance')
export class AdminMaintenanceController {
  constructor(
    private readonly sendStatus: SendStatusRetentionService,
    private readonly events: EventRetentionService,
    private readonly runs: RunRetentionService,
  ) {}

  @Post('purge')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'admin_purge',
    summary: 'Run every retention purge now',
    description:
      'Deletes the sends created more than SEND_STATUS_RETENTION_DAYS ago (with their history), the events created more than ' +
      'EVENT_RETENTION_DAYS ago (with their deliveries and attempts) and the automation runs started more than EVENT_RETENTION_DAYS ago, ' +
      '1000 per transaction. An event with a delivery still pending or retrying, and a run still running, are kept until they settle. ' +
      'The dispatchers also run these purges at start and daily; when another process is running one, ' +
      'this call waits for it (up to 60 s each) and then runs.',
  })
  @ApiOkResponse({ type: PurgeView })
  @ApiErrors(['unavailable', 'another purge kept its lease for more than 60 s, or storage is down'])
  @TakesNoBody()
  async purge(@Body() _none?: NoBody): Promise<PurgeView> {
    return { sendStatus: await this.sendStatus.purgeNow(), events: await this.events.purgeNow(), runs: await this.runs.purgeNow() };
  }
}
