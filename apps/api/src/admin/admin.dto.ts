import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';

export class CreateAccountDto {
  @ApiProperty({ example: 'Acme', minLength: 1, maxLength: 200 })
  @IsString()
  name!: string;
}

export class ListAccountsQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 50 })
  @IsOptional()
  @Matches(/^\d{1,6}$/, { message: 'limit must be an integer from 1 to 100' })
  limit?: string;

  @ApiPropertyOptional({ description: 'nextCursor of the previous page' })
  @IsOptional()
  @IsString()
  cursor?: string;
}

export class CreatedAccountView {
  @ApiProperty({ example: 42 }) id!: number;
  @ApiProperty({ example: 'Acme' }) name!: string;
  @ApiProperty({ description: 'The account API key. Shown once: store it now.' }) apiKey!: string;
  @ApiProperty({ example: 'key_01jd2x7q9m3k8p4r6t1v5w0y2z', description: 'Id of that key, to revoke it later' }) apiKeyId!: string;
}

export class CreatedApiKeyView {
  @ApiProperty({ example: 'key_01jd2x7q9m3k8p4r6t1v5w0y2z' }) id!: string;
  @ApiProperty({ description: 'The API key. Shown once: store it now.' }) apiKey!: string;
}

export class AccountView {
  @ApiProperty({ example: 42 }) id!: number;
  @ApiProperty({ example: 'Acme' }) name!: string;
  @ApiProperty({ example: '2025-11-22T02:00:00.000Z', format: 'date-time' }) createdAt!: string;
}

export class AccountPageView {
  @ApiProperty({ type: [AccountView] }) accounts!: AccountView[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as cursor for the next page; null on the last' }) nextCursor!: string | null;
}

export class ApiKeyView {
  @ApiProperty({ example: 'key_01jd2x7q9m3k8p4r6t1v5w0y2z' }) id!: string;
  @ApiProperty({ type: String, nullable: true, example: 'sk_Xq3vB', description: 'First 8 characters of the key; null for keys created before prefixes were kept' })
  prefix!: string | null;
  @ApiProperty({ example: '2025-11-22T02:00:00.000Z', format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, nullable: true, format: 'date-time', description: 'Last authenticated use; may lag by up to a minute; null if never used' })
  lastUsedAt!: string | null;
}

export class ApiKeyListView {
  @ApiProperty({ type: [ApiKeyView] }) apiKeys!: ApiKeyView[];
}

/** What POST /admin/maintenance/purge (and `npm run cli -- purge`) removed. */
export class PurgeView {
  @ApiProperty({ type: 'integer', example: 1200, description: 'Send records (with their history) deleted' }) sendStatus!: number;
  @ApiProperty({ type: 'integer', example: 53000, description: 'Events deleted, with their deliveries and attempts' }) events!: number;
  @ApiProperty({ type: 'integer', example: 310, description: 'Automation runs deleted' }) runs!: number;
}
