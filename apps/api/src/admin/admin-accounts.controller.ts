import { Body, Controller, Delete, HttpCode, Param, ParseIntPipe, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AccountsService } from '../../../../libs/accounts/src';
import { DomainError } from '../../../../libs/kernel/src';
import { AdminTokenGuard } from '../http/guards';
import { CreateAccountDto, CreatedAccountView, CreatedApiKeyView } from './admin.dto';

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
