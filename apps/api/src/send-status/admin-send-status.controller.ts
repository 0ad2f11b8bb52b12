import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { NoBody, TakesNoBody } from '../http/no-body';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { SendStatusRetentionService } from '../../../../libs/send-status/src';
import { AdminAuth } from '../http/route-auth';
import { ApiErrors } from '../openapi/api-errors';
import { PurgeSendStatusView } from './send-status.dto';

@ApiTags('admin')
@AdminAuth()
@Controller('admin/maintenance')
export class AdminSendStatusController {
  constructor(private readonly retention: SendStatusRetentionService) {}

  @Post('purge-send-status')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'admin_purgeSendStatus',
    summary: 'Run the send-status retention purge now',
    description:
      'Deletes the sends created more than SEND_STATUS_RETENTION_DAYS days ago, with their history, 1000 per transaction; ' +
      'they are not_found afterwards. The dispatchers also run it at start and daily. When another process is purging, ' +
      'waits for it (up to 60 s) and then runs.',
  })
  @ApiOkResponse({ type: PurgeSendStatusView })
  @ApiErrors(['unavailable', 'another purge kept the lease for more than 60 s, or storage is down'])
  @TakesNoBody()
  async purge(@Body() _none?: NoBody): Promise<PurgeSendStatusView> {
    return { purged: await this.retention.purgeNow() };
  }
}
