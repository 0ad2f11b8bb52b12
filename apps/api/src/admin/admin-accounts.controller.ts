import { Body, Controller, Delete, HttpCode, Param, ParseIntPipe, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AccountsService } from '../../../../libs/accounts/src';
import { DomainError } from '../../../../libs/kernel/src';
import { AdminAuth } from '../http/route-auth';
import { ApiErrors } from '../openapi/api-errors';
import { CreateAccountDto, CreatedAccountView, CreatedApiKeyView } from './admin.dto';

const accountIdPipe = new ParseIntPipe({ exceptionFactory: () => new DomainError('not_found', 'account not found') });

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

  @Post(':id/api-keys')
  @ApiOperation({ operationId: 'admin_createApiKey', summary: 'Create another API key for an account (shown once)' })
  @ApiCreatedResponse({ type: CreatedApiKeyView })
  @ApiErrors(['not_found', 'no such account'])
  createKey(@Param('id', accountIdPipe) id: number): Promise<CreatedApiKeyView> {
    return this.accounts.createApiKey(id);
  }

  @Delete(':id/api-keys/:keyId')
  @HttpCode(204)
  @ApiOperation({ operationId: 'admin_revokeApiKey', summary: 'Revoke an API key' })
  @ApiNoContentResponse({ description: 'Revoked' })
  @ApiErrors(['not_found', 'no such account, or no such key of this account'])
  async revokeKey(@Param('id', accountIdPipe) id: number, @Param('keyId') keyId: string): Promise<void> {
    await this.accounts.revokeApiKey(id, keyId);
  }
}
