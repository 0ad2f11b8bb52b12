import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsInt, IsOptional, IsString, Min } from 'class-validator';
import { BOUNCE_TYPES, REPORT_BATCH_MAX, REPORTABLE_STATUSES, SEND_CHANNELS, SEND_STATUSES } from '../../../../libs/send-status/src';
import { snakeCaseModel } from '../openapi/snake-case-model';

/** Shown wherever a send status is: what each value means and when `delivered` shows up. */
export const SEND_STATUS_DESCRIPTION =
  'scheduled: planned for a later date. queued: accepted, waiting to be sent. ' +
  'sent: handed over by our servers, no answer yet from the recipient server; `delivered` typically appears about 5 minutes ' +
  'after handover, so poll with backoff (e.g. after 1, 2, 4, 8 minutes) or, better, subscribe to the email.delivered and ' +
  'email.bounced events. deferred: the recipient server asked for a later retry and we retry (it may repeat). ' +
  'delivered: accepted by the recipient server (final). bounced: rejected (final; see bounceType). ' +
  'A status only moves forward: scheduled < queued < sent < deferred < delivered | bounced.';

const TIMESTAMP = { type: String, format: 'date-time', example: '2024-11-22T10:04:58.000Z' } as const;

// ---- producers (/internal) ------------------------------------------------------------------

export class CreateSendDto {
  @ApiProperty({ example: 42, description: 'The account the send belongs to' })
  @IsInt({ message: 'accountId must be a positive integer' })
  @Min(1, { message: 'accountId must be a positive integer' })
  accountId!: number;

  @ApiProperty({ example: 'jane@example.com', maxLength: 254, description: 'Recipient address (ASCII local part, dotted domain)' })
  @IsString()
  email!: string;

  @ApiProperty({ enum: SEND_CHANNELS, example: 'api_v3', description: 'How the email is sent; sendingType 1 api_v3, 2 api_v2, 3 smtp, 4 automation. Campaigns have no send status (`campaign` is refused).' })
  @IsString()
  channel!: string;

  @ApiPropertyOptional({ ...TIMESTAMP, description: 'Planned sending time; in the future, the send starts as `scheduled`' })
  @IsOptional()
  @IsString()
  scheduledAt?: string | null;

  @ApiPropertyOptional({ ...TIMESTAMP, description: 'Backfill only: when the send was created (default now). A backfilled send emits no email.processed; retention counts from this time.' })
  @IsOptional()
  @IsString()
  createdAt?: string | null;
}

export class CreatedSendView {
  @ApiProperty({ example: 'msg_01jd2x7q9m3k8p4r6t1v5w0y2z', description: 'The send identifier for the status routes' }) id!: string;
  @ApiProperty({ example: 1001, description: 'Integer identifier of the send, unique across the installation; carried by the email.* events' }) idSending!: number;
  @ApiProperty({ enum: ['queued', 'scheduled'] }) status!: 'queued' | 'scheduled';
}

export class SendReportDto {
  @ApiProperty({ enum: REPORTABLE_STATUSES, description: SEND_STATUS_DESCRIPTION })
  @IsString()
  status!: string;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 1024, example: '250 2.0.0 OK', description: "The recipient server's SMTP reply; required with delivered" })
  @IsOptional()
  @IsString()
  diagCode?: string | null;

  @ApiPropertyOptional({ enum: BOUNCE_TYPES, nullable: true, description: 'Required with bounced (hard: permanent, soft: temporary); refused with any other status' })
  @IsOptional()
  @IsString()
  bounceType?: string | null;

  @ApiPropertyOptional({
    ...TIMESTAMP,
    description:
      'When it happened (default: when the report arrives); the time of email.delivered / email.bounced. ' +
      'Give it to make retries idempotent: the same (status, at, diagCode, bounceType) is stored once.',
  })
  @IsOptional()
  @IsString()
  at?: string | null;
}

export class SendReportItemDto extends SendReportDto {
  @ApiProperty({ example: 'msg_01jd2x7q9m3k8p4r6t1v5w0y2z' }) id!: string;
}

export class SendReportBatchDto {
  @ApiProperty({
    type: [SendReportItemDto],
    maxItems: REPORT_BATCH_MAX,
    description: `Up to ${REPORT_BATCH_MAX} reports (more: limit_exceeded; none: no results). Each is validated and applied on its own; see the per-item results.`,
  })
  @IsArray()
  events!: unknown[];
}

export class ReportAcceptedView {
  @ApiProperty({ example: 'msg_01jd2x7q9m3k8p4r6t1v5w0y2z' }) id!: string;
  @ApiProperty({ example: true }) accepted!: true;
  @ApiProperty({ enum: SEND_STATUSES, description: "The send's status once the report is applied (unchanged by a late or repeated report)" })
  status!: string;
}

export class ReportErrorView {
  @ApiProperty({ enum: ['invalid_parameter', 'not_found'] }) code!: string;
  @ApiProperty({ example: 'events[3].diagCode is required with status delivered' }) message!: string;
}

export class ReportBatchResultView {
  @ApiProperty({ type: String, nullable: true, description: "The item's id (null when it had no string id)" }) id!: string | null;
  @ApiPropertyOptional({ example: true, description: 'Present when the report was applied' }) accepted?: true;
  @ApiPropertyOptional({ enum: SEND_STATUSES, description: "With accepted: the send's status after this report" }) status?: string;
  @ApiPropertyOptional({ type: ReportErrorView, description: 'Present instead of accepted when the item was refused' }) error?: ReportErrorView;
}

export class ReportBatchView {
  @ApiProperty({
    type: [ReportBatchResultView],
    description: 'One result per item, in input order: `{"id","accepted":true,"status"}` or `{"id","error":{"code","message"}}`.',
  })
  results!: ReportBatchResultView[];
}

// ---- account holders (/v3, /v2) -------------------------------------------------------------

export class SendHistoryV3View {
  @ApiProperty({ enum: SEND_STATUSES }) status!: string;
  @ApiProperty(TIMESTAMP) at!: string;
  @ApiProperty({ type: String, nullable: true, example: '250 2.0.0 OK' }) diagCode!: string | null;
}

export class SendStatusV3View {
  @ApiProperty({ example: 'msg_01jd2x7q9m3k8p4r6t1v5w0y2z' }) id!: string;
  @ApiProperty({ enum: SEND_STATUSES, description: SEND_STATUS_DESCRIPTION }) status!: string;
  @ApiProperty({ example: 'jane@example.com' }) email!: string;
  @ApiProperty({ type: String, nullable: true, example: '250 2.0.0 OK', description: "The recipient server's SMTP reply (set when delivered; may be set when bounced or deferred)" })
  diagCode!: string | null;
  @ApiProperty({ enum: BOUNCE_TYPES, nullable: true, description: 'Set when bounced: hard (permanent) or soft (temporary)' }) bounceType!: string | null;
  @ApiProperty(TIMESTAMP) createdAt!: string;
  @ApiProperty({ ...TIMESTAMP, description: 'When the record last changed (creation or the last status move): poll until it moves' }) updatedAt!: string;
  @ApiProperty({ type: [SendHistoryV3View], description: 'Every report received, oldest first (late ones included)' }) history!: SendHistoryV3View[];
}

/** The v2 forms: the snake_case twins of the v3 classes, as presentV2 produces them. */
export const SendHistoryV2View = snakeCaseModel(SendHistoryV3View, 'SendHistoryV2View');
export const SendStatusV2View = snakeCaseModel(SendStatusV3View, 'SendStatusV2View');

export class SendNotFoundView {
  @ApiProperty({ example: 'msg_01jd2x7q9m3k8p4r6t1v5w0y2z', description: 'The id as requested' }) id!: string;
  @ApiProperty({ enum: ['not_found'] }) status!: 'not_found';
}

// ---- operators (/admin) ---------------------------------------------------------------------

export class PurgeSendStatusView {
  @ApiProperty({ example: 1200, description: 'Send records (with their history) deleted by this run' }) purged!: number;
}
