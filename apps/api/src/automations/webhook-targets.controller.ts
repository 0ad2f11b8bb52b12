import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, UseGuards } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiSecurity,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { Account } from '../../../../libs/accounts/src';
import { WebhookTargetsService } from '../../../../libs/webhook-targets/src';
import { ApiKeyGuard, CurrentAccount } from '../http/guards';
import { ContractErrorView, WebhookTargetBody, WebhookTargetListView, WebhookTargetView } from './automations.dto';

@ApiTags('automations')
@ApiSecurity('api-key')
@ApiUnauthorizedResponse({ type: ContractErrorView })
@UseGuards(ApiKeyGuard)
@Controller('v3/automations/webhook-targets')
export class WebhookTargetsController {
  constructor(private readonly targets: WebhookTargetsService) {}

  @Post()
  @ApiOperation({ summary: 'Create a webhook target (the signing key is shown once, when generated)' })
  @ApiCreatedResponse({ type: WebhookTargetView })
  @ApiBadRequestResponse({ type: ContractErrorView })
  create(@CurrentAccount() account: Account, @Body() body: WebhookTargetBody): Promise<WebhookTargetView> {
    return this.targets.create(account.id, body);
  }

  @Get()
  @ApiOperation({ summary: "List the account's webhook targets" })
  @ApiOkResponse({ type: WebhookTargetListView })
  async list(@CurrentAccount() account: Account): Promise<WebhookTargetListView> {
    return { targets: await this.targets.list(account.id) };
  }

  @Get(':id')
  @ApiOperation({ summary: 'Read a webhook target' })
  @ApiOkResponse({ type: WebhookTargetView })
  @ApiNotFoundResponse({ type: ContractErrorView })
  get(@CurrentAccount() account: Account, @Param('id') id: string): Promise<WebhookTargetView> {
    return this.targets.get(account.id, id);
  }

  @Put(':id')
  @ApiOperation({ summary: 'Change a webhook target (name and url required; headers and key kept when absent)' })
  @ApiOkResponse({ type: WebhookTargetView })
  @ApiBadRequestResponse({ type: ContractErrorView })
  @ApiNotFoundResponse({ type: ContractErrorView })
  update(@CurrentAccount() account: Account, @Param('id') id: string, @Body() body: WebhookTargetBody): Promise<WebhookTargetView> {
    return this.targets.update(account.id, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a webhook target (refused with 400 while a workflow step calls it)' })
  @ApiNoContentResponse()
  @ApiBadRequestResponse({ type: ContractErrorView, description: 'The target is used by workflows (named in the message).' })
  @ApiNotFoundResponse({ type: ContractErrorView })
  async delete(@CurrentAccount() account: Account, @Param('id') id: string): Promise<void> {
    await this.targets.delete(account.id, id);
  }
}
