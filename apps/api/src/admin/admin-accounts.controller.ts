import { Body, Controller, Delete, Get, HttpCode, Param, ParseIntPipe, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AccountsService } from '../../../../libs/accounts/src';
import { DomainError } from '../../../../libs/kernel/src';
import { AdminTokenGuard } from '../http/guards';
import { accountPageView, accountView, apiKeyListView } from './admin-accounts.presenter';
import { AccountPageView, AccountView, ApiKeyListView, CreateAccountDto, CreatedAccountView, CreatedApiKeyView, ListAccountsQuery } from './admin.dto';

const accountIdPipe = new ParseIntPipe({ exceptionFactory: () => new DomainError('not_found', 'account not found') });

@ApiTags('admin')
@ApiBearerAuth('admin')
@UseGuards(AdminTokenGuard)
@Controller('admin/accounts')
export class AdminAccountsController {
  constructor(private readonly accounts: AccountsService) {}

  @Post()
  @ApiOperation({ summary: 'Create an account and its first API key (shown once)' })
  @ApiCreatedResponse({ type: CreatedAccountView })
  create(@Body() body: CreateAccountDto): Promise<CreatedAccountView> {
    return this.accounts.createAccount(body.name);
  }

  @Get()
  @ApiOperation({ summary: 'List accounts, oldest first' })
  @ApiOkResponse({ type: AccountPageView })
  async list(@Query() query: ListAccountsQuery): Promise<AccountPageView> {
    return accountPageView(await this.accounts.listAccounts({ limit: query.limit === undefined ? undefined : Number(query.limit), cursor: query.cursor }));
  }

  @Get(':id')
  @ApiOperation({ summary: 'Read an account' })
  @ApiOkResponse({ type: AccountView })
  async get(@Param('id', accountIdPipe) id: number): Promise<AccountView> {
    return accountView(await this.accounts.getAccount(id));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete an account and everything it owns; its waiting work is cancelled, its keys refused within 5 s' })
  @ApiNoContentResponse()
  async delete(@Param('id', accountIdPipe) id: number): Promise<void> {
    await this.accounts.deleteAccount(id);
  }

  @Get(':id/api-keys')
  @ApiOperation({ summary: "List an account's API keys that are not revoked (never the keys themselves)" })
  @ApiOkResponse({ type: ApiKeyListView })
  async listKeys(@Param('id', accountIdPipe) id: number): Promise<ApiKeyListView> {
    return apiKeyListView(await this.accounts.listApiKeys(id));
  }

  @Post(':id/api-keys')
  @ApiOperation({ summary: 'Create another API key for an account (shown once)' })
  @ApiCreatedResponse({ type: CreatedApiKeyView })
  createKey(@Param('id', accountIdPipe) id: number): Promise<CreatedApiKeyView> {
    return this.accounts.createApiKey(id);
  }

  @Delete(':id/api-keys/:keyId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke an API key' })
  @ApiNoContentResponse()
  async revokeKey(@Param('id', accountIdPipe) id: number, @Param('keyId') keyId: string): Promise<void> {
    await this.accounts.revokeApiKey(id, keyId);
  }
}
