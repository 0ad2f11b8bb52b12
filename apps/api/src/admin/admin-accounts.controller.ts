import { Body, Controller, Delete, Get, HttpCode, Param, PipeTransform, Post, Query } from '@nestjs/common';
import { NoBody, TakesNoBody } from '../http/no-body';
import { NoQuery } from '../http/no-query';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AccountsService, parseAccountId } from '../../../../libs/accounts/src';
import { AdminAuth } from '../http/route-auth';
import { ApiErrors } from '../openapi/api-errors';
import { accountPageView, accountView, apiKeyListView } from './admin-accounts.presenter';
import { AccountPageView, AccountView, ApiKeyListView, CreateAccountDto, CreatedAccountView, CreatedApiKeyView, ListAccountsQuery } from './admin.dto';
import { pageQueryOf } from '../http/page-query';

/** The path's account id, parsed by the one rule of libs/accounts. */
const accountIdPipe: PipeTransform<string, number> = { transform: parseAccountId };

@ApiTags('admin')
@AdminAuth()
@Controller('admin/accounts')
export class AdminAccountsController {
  constructor(private readonly accounts: AccountsService) {}

  @Post()
  @ApiOperation({ operationId: 'admin_createAccount', summary: 'Create an account and its first API key (shown once)' })
  @ApiCreatedResponse({ type: CreatedAccountView })
  @ApiErrors('invalid_parameter')
  create(@Body() body: CreateAccountDto): Promise<CreatedAccountView> {
    return this.accounts.createAccount(body.name);
  }

  @Get()
  @ApiOperation({ operationId: 'admin_listAccounts', summary: 'List accounts, oldest first' })
  @ApiOkResponse({ type: AccountPageView })
  @ApiErrors(['invalid_parameter', 'limit out of range, or a cursor this list did not return'])
  async list(@Query() query: ListAccountsQuery): Promise<AccountPageView> {
    return accountPageView(await this.accounts.listAccounts(pageQueryOf(query)));
  }

  @Get(':id')
  @ApiOperation({ operationId: 'admin_getAccount', summary: 'Read an account' })
  @ApiOkResponse({ type: AccountView })
  @ApiErrors(['not_found', 'no such account'])
  async get(@Param('id', accountIdPipe) id: number): Promise<AccountView> {
    return accountView(await this.accounts.getAccount(id));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ operationId: 'admin_deleteAccount', summary: 'Delete an account and everything it owns; its waiting work is cancelled, its keys refused within 5 s' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(['not_found', 'no such account'])
  async delete(@Param('id', accountIdPipe) id: number): Promise<void> {
    await this.accounts.deleteAccount(id);
  }

  @Get(':id/api-keys')
  @ApiOperation({ operationId: 'admin_listApiKeys', summary: "List an account's API keys that are not revoked (never the keys themselves)" })
  @ApiOkResponse({ type: ApiKeyListView })
  @ApiErrors(['not_found', 'no such account'])
  async listKeys(@Param('id', accountIdPipe) id: number, @Query() _query: NoQuery): Promise<ApiKeyListView> {
    return apiKeyListView(await this.accounts.listApiKeys(id));
  }

  @Post(':id/api-keys')
  @ApiOperation({ operationId: 'admin_createApiKey', summary: 'Create another API key for an account (shown once)' })
  @ApiCreatedResponse({ type: CreatedApiKeyView })
  @ApiErrors(['not_found', 'no such account'])
  @TakesNoBody()
  createKey(@Param('id', accountIdPipe) id: number, @Body() _none?: NoBody): Promise<CreatedApiKeyView> {
    return this.accounts.createApiKey(id);
  }

  @Delete(':id/api-keys/:keyId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'admin_revokeApiKey', summary: 'Revoke an API key' })
  @ApiNoContentResponse({ description: 'Revoked' })
  @ApiErrors(['not_found', 'no such account, or no such key of this account, or the key is revoked already'])
  async revokeKey(@Param('id', accountIdPipe) id: number, @Param('keyId') keyId: string): Promise<void> {
    await this.accounts.revokeApiKey(id, keyId);
  }
}
