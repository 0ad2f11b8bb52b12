import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiCreatedResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { SendStatusService } from '../../../../libs/send-status/src';
import { InternalAuth } from '../http/route-auth';
import { ApiErrors } from '../openapi/api-errors';
import { CreatedSendView, CreateSendDto, ReportAcceptedView, ReportBatchView, SEND_STATUS_DESCRIPTION, SendReportBatchDto, SendReportDto } from './send-status.dto';

/** Producers (the sending pipeline) record sends and report what happened to them. */
@ApiTags('producers')
@InternalAuth()
@Controller('internal/sends')
export class InternalSendsController {
  constructor(private readonly sends: SendStatusService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    operationId: 'internal_createSend',
    summary: 'Record a transactional send',
    description:
      'Returns the send id (`msg_...`) for the status routes and an `idSending` integer unique across the installation. ' +
      'Status `scheduled` when scheduledAt is in the future, else `queued`. A queued send emits email.processed now, a scheduled one when a report first moves it on; a backfill (createdAt given) does not at creation. ' +
      'Campaign sends have no send status: channel `campaign` is refused.',
  })
  @ApiCreatedResponse({ type: CreatedSendView })
  @ApiErrors(['invalid_parameter', 'unknown channel (campaign included), invalid email or timestamp'], ['not_found', 'no such account'])
  create(@Body() body: CreateSendDto): Promise<CreatedSendView> {
    return this.sends.createSend(body);
  }

  @Post('events/batch')
  @HttpCode(202)
  @ApiOperation({
    operationId: 'internal_reportSendEvents',
    summary: 'Report up to 1000 send events at once',
    description:
      'Each item `{id, status, diagCode?, bounceType?, at?}` follows the rules of the single route and is answered on its own, ' +
      'in input order: `{"id","accepted":true,"status"}` or `{"id","error":{"code":"invalid_parameter"|"not_found","message"}}`. ' +
      'The accepted items commit together.',
  })
  @ApiAcceptedResponse({ type: ReportBatchView })
  @ApiErrors(['invalid_parameter', 'events missing, empty or not an array'], ['limit_exceeded', 'more than 1000 items'])
  async reportBatch(@Body() body: SendReportBatchDto): Promise<ReportBatchView> {
    return { results: await this.sends.reportBatch(body.events) };
  }

  @Post(':id/events')
  @HttpCode(202)
  @ApiOperation({
    operationId: 'internal_reportSendEvent',
    summary: 'Report what happened to a send',
    description:
      `${SEND_STATUS_DESCRIPTION} A report that would move the status back (it arrived late) is kept in the history only; ` +
      'the same report twice (same status, at, diagCode and bounceType) is stored once. Reaching delivered emits email.delivered, ' +
      'reaching bounced emits email.bounced, in the same transaction and once per send.',
  })
  @ApiParam({ name: 'id', example: 'msg_01jd2x7q9m3k8p4r6t1v5w0y2z' })
  @ApiAcceptedResponse({ type: ReportAcceptedView })
  @ApiErrors(['invalid_parameter', 'unknown status, delivered without diagCode, bounced without bounceType, invalid at'], ['not_found', 'no such send'])
  report(@Param('id') id: string, @Body() body: SendReportDto): Promise<ReportAcceptedView> {
    return this.sends.report(id, body);
  }
}
