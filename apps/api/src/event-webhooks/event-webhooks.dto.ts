import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsArray, IsInt, IsObject, IsOptional, IsString, Matches } from 'class-validator';
import { DELIVERY_STATUSES, MAX_DESCRIPTION_LENGTH, MAX_EVENTS_PER_WEBHOOK } from '../../../../libs/event-webhooks/src';
import { TARGET_URL_MAX_LENGTH } from '../../../../libs/kernel/src';
import { OptionalBody } from '../http/contract-validation.pipe';

/**
 * Request shapes of the event-webhooks routes. They check types only; the rules (catalog types,
 * limits, URL policy) are the domain's, so that both families and every caller share them.
 * Field names are the same in both families (single words).
 */
export class CreateWebhookDto {
  @ApiProperty({ format: 'uri', maxLength: 2048, example: 'https://crm.example.com/hooks/service' })
  @IsString()
  url!: string;

  @ApiProperty({ type: [String], minItems: 1, maxItems: MAX_EVENTS_PER_WEBHOOK, example: ['email.delivered', 'email.bounced'], description: `1 to ${MAX_EVENTS_PER_WEBHOOK} distinct types of GET /v3/events/types` })
  @IsArray()
  events!: string[];

  @ApiPropertyOptional({ type: String, maxLength: MAX_DESCRIPTION_LENGTH, nullable: true, example: 'CRM sync' })
  @IsOptional()
  @IsString()
  description?: string | null;
}

export class UpdateWebhookDto {
  @ApiPropertyOptional({ format: 'uri', maxLength: TARGET_URL_MAX_LENGTH })
  @IsOptional()
  @IsString()
  url?: string;

  @ApiPropertyOptional({ type: [String], minItems: 1, maxItems: MAX_EVENTS_PER_WEBHOOK })
  @IsOptional()
  @IsArray()
  events?: string[];

  @ApiPropertyOptional({ type: String, maxLength: MAX_DESCRIPTION_LENGTH, nullable: true, description: 'null clears it' })
  @IsOptional()
  @IsString()
  description?: string | null;
}

/** The test route takes no body, or `{"type"}`. */
@OptionalBody()
export class TestWebhookDto {
  @ApiPropertyOptional({ default: 'email.delivered', example: 'email.bounced', description: 'Type of the sample event, from GET /v3/events/types' })
  @IsOptional()
  @IsString()
  type?: string;
}

export class RecoverDto {
  @ApiProperty({ format: 'date-time', example: '2025-11-22T00:00:00Z', description: 'Recover deliveries created at or after this time' })
  @IsString()
  since!: string;
}

export class ListDeliveriesQuery {
  @ApiPropertyOptional({ enum: DELIVERY_STATUSES, enumName: 'DeliveryStatus' })
  @IsOptional()
  @IsString()
  status?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 20 })
  @IsOptional()
  @Matches(/^\d{1,6}$/, { message: 'limit must be an integer from 1 to 100' })
  limit?: string;

  @ApiPropertyOptional({ description: 'nextCursor of the previous page' })
  @IsOptional()
  @IsString()
  cursor?: string;
}

export class WebhookStatsQuery {
  @ApiPropertyOptional({ format: 'date-time', description: 'ISO 8601; default 24 hours ago, at most 31 days ago' })
  @IsOptional()
  @IsString()
  since?: string;
}

export class PublishEventDto {
  @ApiProperty({ example: 42 })
  @IsInt()
  accountId!: number;

  @ApiProperty({ example: 'email.delivered' })
  @IsString()
  type!: string;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'Checked against the schema of its type', example: { email: 'jane@example.com', idSending: 1001, sendingType: 1, diagCode: '250 2.0.0 OK', deliveredAt: '2025-11-22T02:00:00.000Z' } })
  @IsObject()
  data!: Record<string, unknown>;

  @ApiPropertyOptional({ example: 'evt_order_1001_delivered', description: 'Your idempotency key: a repeated id is accepted once. Generated when absent.' })
  @IsOptional()
  @IsString()
  id?: string;

  @ApiPropertyOptional({ example: 1732238400, description: 'Unix seconds; now when absent' })
  @IsOptional()
  @IsInt()
  created?: number;
}

/** Documentation only: the batch route checks its body itself (see InternalEventsController). */
export class PublishEventBatchDto {
  @ApiProperty({ type: [PublishEventDto], maxItems: 1000 })
  events!: PublishEventDto[];
}

export class ListEventsQuery {
  @ApiPropertyOptional({ description: 'One event type, or several comma-separated (or the parameter repeated)', example: 'email.delivered,email.bounced' })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (Array.isArray(value) ? value.join(',') : value))
  @IsString()
  type?: string;

  @ApiPropertyOptional({ format: 'date-time', example: '2025-11-22T00:00:00Z', description: 'Events created at or after this time' })
  @IsOptional()
  @IsString()
  since?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 20 })
  @IsOptional()
  @Matches(/^\d{1,6}$/, { message: 'limit must be an integer from 1 to 100' })
  limit?: string;

  @ApiPropertyOptional({ description: 'The next cursor of the previous page' })
  @IsOptional()
  @IsString()
  cursor?: string;
}
