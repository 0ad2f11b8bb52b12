import { Controller, Get, Param, Res } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { Account } from '../../../../libs/accounts/src';
import { SendStatusService, SendWithHistory } from '../../../../libs/send-status/src';
import { CurrentAccount } from '../http/guards';
import { ApiKeyAuth } from '../http/route-auth';
import { SEND_STATUS_DESCRIPTION, SendNotFoundView, SendStatusV2View, SendStatusV3View } from './send-status.dto';
import { notFoundBody, presentV2, presentV3 } from './send-status.presenter';

const LOOKUP_DESCRIPTION =
  'The status of a transactional send by the id returned when sending, with every report received. ' +
  `${SEND_STATUS_DESCRIPTION} Records are kept SEND_STATUS_RETENTION_DAYS (365) days after creation. ` +
  'An unknown id and another account\'s id get the same answer, byte for byte: 404 {"id":"<id>","status":"not_found"}.';

/** Account holders read a send's status: v3 camelCase, v2 snake_case, one lookup underneath. */
@ApiTags('send status')
@ApiKeyAuth()
@Controller()
export class SendStatusLookupController {
  constructor(private readonly sends: SendStatusService) {}

  @Get('v3/Send/:id/Status')
  @ApiOperation({ operationId: 'v3_getSendStatus', summary: 'Read the status of a transactional send (v3)', description: LOOKUP_DESCRIPTION })
  @ApiParam({ name: 'id', example: 'msg_01jd2x7q9m3k8p4r6t1v5w0y2z' })
  @ApiOkResponse({ type: SendStatusV3View })
  @ApiNotFoundResponse({ type: SendNotFoundView, description: 'Unknown id, or an id of another account (same bytes)' })
  async v3(@CurrentAccount() account: Account, @Param('id') id: string, @Res() reply: FastifyReply): Promise<void> {
    await this.answer(reply, account, id, presentV3);
  }

  @Get('v2/send/:id/status.json')
  @ApiOperation({ operationId: 'v2_getSendStatus', summary: 'Read the status of a transactional send (v2)', description: LOOKUP_DESCRIPTION })
  @ApiParam({ name: 'id', example: 'msg_01jd2x7q9m3k8p4r6t1v5w0y2z' })
  @ApiOkResponse({ type: SendStatusV2View })
  @ApiNotFoundResponse({ type: SendNotFoundView, description: 'Unknown id, or an id of another account (same bytes)' })
  async v2(@CurrentAccount() account: Account, @Param('id') id: string, @Res() reply: FastifyReply): Promise<void> {
    await this.answer(reply, account, id, presentV2);
  }

  /** One path for every id: a single query filtered by account and id, then 200 or the not_found body. */
  private async answer(reply: FastifyReply, account: Account, id: string, present: (send: SendWithHistory) => object): Promise<void> {
    const send = await this.sends.lookup(account.id, id);
    const [status, body] = send ? [200, JSON.stringify(present(send))] : [404, notFoundBody(id)];
    void reply.status(status).header('content-type', 'application/json; charset=utf-8').header('cache-control', 'no-store').send(body);
  }
}
