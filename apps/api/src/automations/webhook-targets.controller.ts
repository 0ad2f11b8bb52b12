import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Account } from '../../../../libs/accounts/src';
import { WebhookTargetsService } from '../../../../libs/webhook-targets/src';
import { CurrentAccount } from '../http/guards';
import { ApiKeyAuth } from '../http/route-auth';
import { ApiErrors } from '../openapi/api-errors';
import { ListPageQuery, WebhookTargetBody, WebhookTargetListView, WebhookTargetView } from './automations.dto';
import { pageQueryOf } from '../http/page-query';

@ApiTags('automations')
@ApiKeyAuth()
@Controller('v3/automations/webhook-targets')
export class WebhookTargetsController {
  constructor(private readonly targets: WebhookTargetsService) {}

  @Post()
  @ApiOperation({ operationId: 'v3_createWebhookTarget', summary: 'Create a webhook target (the signing key is shown once, when generated)' })
  @ApiCreatedResponse({ type: WebhookTargetView })
  @ApiErrors('invalid_parameter', ['limit_exceeded', 'more than 100 targets per account'])
  create(@CurrentAccount() account: Account, @Body() body: WebhookTargetBody): Promise<WebhookTargetView> {
    return this.targets.create(account.id, body);
  }

  @Get()
  @ApiOperation({ operationId: 'v3_listWebhookTargets', summary: "List the account's webhook targets" })
  @ApiOkResponse({ type: WebhookTargetListView })
  @ApiErrors(['invalid_parameter', 'a limit outside 1 to 100 or a cursor not from this list'])
  async list(@CurrentAccount() account: Account, @Query() query: ListPageQuery): Promise<WebhookTargetListView> {
    const page = await this.targets.list(account.id, pageQueryOf(query));
    return { targets: page.items, nextCursor: page.nextCursor };
  }

  @Get(':id')
  @ApiOperation({ operationId: 'v3_getWebhookTarget', summary: 'Read a webhook target' })
  @ApiOkResponse({ type: WebhookTargetView })
  @ApiErrors('not_found')
  get(@CurrentAccount() account: Account, @Param('id') id: string): Promise<WebhookTargetView> {
    return this.targets.get(account.id, id);
  }

  @Put(':id')
  @ApiOperation({ operationId: 'v3_updateWebhookTarget', summary: 'Change a webhook target (name and url required; headers and key kept when absent)' })
  @ApiOkResponse({ type: WebhookTargetView })
  @ApiErrors('invalid_parameter', 'not_found')
  update(@CurrentAccount() account: Account, @Param('id') id: string, @Body() body: WebhookTargetBody): Promise<WebhookTargetView> {
    return this.targets.update(account.id, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ operationId: 'v3_deleteWebhookTarget', summary: 'Delete a webhook target (refused with 400 while a workflow step calls it)' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(['invalid_parameter', 'the target is used by workflows (named in the message)'], 'not_found')
  async delete(@CurrentAccount() account: Account, @Param('id') id: string): Promise<void> {
    await this.targets.delete(account.id, id);
  }
}
