import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { RawJson } from '../http/contract-validation.pipe';
import { ApiAnyJsonProperty } from '../openapi/any-json';
import { WORKFLOW_LIMITS } from '../../../../libs/automations/src';
import { TRANSPORT_ERROR_KINDS } from '../../../../libs/kernel/src';
import { TEMPLATE_LIMITS } from '../../../../libs/webhook-targets/src';
import { IsBoolean, IsObject, IsOptional, IsString, Matches } from 'class-validator';

const TARGET_ID = 'tgt_01jd2x7q9m3k8p4r6t1v5w0y2z';
const WORKFLOW_ID = 'wf_01jd2x7q9m3k8p4r6t1v5w0y2z';
const RUN_ID = 'run_01jd2x7q9m3k8p4r6t1v5w0y2z';

// ---------------------------------------------------------------- webhook targets

export class WebhookTargetBody {
  @ApiProperty({ example: 'CRM', minLength: 1, maxLength: 200 })
  @IsString()
  name!: string;

  @ApiProperty({ example: 'https://crm.example.com/hooks/service', maxLength: 2048, description: 'Absolute http(s) URL; private and loopback addresses are refused unless ALLOW_PRIVATE_TARGETS=true.' })
  @IsString()
  url!: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { Authorization: 'Bearer 3f9a...' },
    description:
      'Custom headers sent with every call (at most 20). Host, Content-Length, Content-Type, Content-Encoding, X-Service-Automation-Signature and hop-by-hop headers are refused. On PUT, when present, they replace the set; absent, they are kept.',
  })
  @IsOptional()
  @IsObject()
  @RawJson()
  headers?: Record<string, string>;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    minLength: 16,
    maxLength: 512,
    description: 'A signing key of your choosing (never returned). On PUT: a string replaces the key, null removes it, absent keeps it.',
  })
  @IsOptional()
  @IsString()
  signingKey?: string | null;

  @ApiPropertyOptional({ example: true, description: 'true: the server generates a signing key and returns it in this response alone.' })
  @IsOptional()
  @IsBoolean()
  generateSigningKey?: boolean;
}

export class WebhookTargetView {
  @ApiProperty({ example: TARGET_ID }) id!: string;
  @ApiProperty({ example: 'CRM' }) name!: string;
  @ApiProperty({ example: 'https://crm.example.com/hooks/service' }) url!: string;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, example: { Authorization: 'Bearer 3f9a...' } }) headers!: Record<string, string>;
  @ApiProperty({ description: 'Whether calls carry X-Service-Automation-Signature.' }) signed!: boolean;
  @ApiProperty({ example: '2025-11-22T02:00:00.000Z' }) createdAt!: string;
  @ApiProperty({ example: '2025-11-22T02:00:00.000Z' }) updatedAt!: string;
  @ApiPropertyOptional({ example: 'tsk_0dKb3...', description: 'Only in the response that generated it. Store it now.' }) signingKey?: string;
}

/** `?limit=&cursor=` of the target and workflow lists (oldest first; at most 100 of each per account fit one page). */
export class ListPageQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 100 })
  @IsOptional()
  @Matches(/^\d{1,6}$/, { message: 'limit must be an integer from 1 to 100' })
  limit?: string;

  @ApiPropertyOptional({ description: 'nextCursor of the previous page' })
  @IsOptional()
  @IsString()
  cursor?: string;
}

export class WebhookTargetListView {
  @ApiProperty({ type: [WebhookTargetView] }) targets!: WebhookTargetView[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as ?cursor= for the next page; null on the last one' }) nextCursor!: string | null;
}

// ---------------------------------------------------------------- workflows

export class IncomingWebhookTriggerDoc {
  @ApiProperty({ enum: ['incoming_webhook'] }) type!: 'incoming_webhook';
}

export class SendWebhookStepDoc {
  @ApiProperty({ enum: ['send_webhook'] }) type!: 'send_webhook';
  @ApiProperty({ example: TARGET_ID }) targetId!: string;
  @ApiAnyJsonProperty({
    description:
      'JSON template of the request body. In string values, {{ path }} is filled from trigger.body.* (dot, [index] and ["key"] access), ' +
      'trigger.receivedAt, workflow.id, workflow.name, run.id, account.id. A string that is exactly one placeholder takes the value with its JSON type; ' +
      'inside other text it is interpolated as text (objects as JSON, null or missing as empty). A missing path is null. Object keys are literal. ' +
      `At most ${TEMPLATE_LIMITS.maxJsonLength} characters as JSON, ${TEMPLATE_LIMITS.maxDepth} levels of nesting and ${TEMPLATE_LIMITS.maxPlaceholders} placeholders.`,
    example: { orderId: '{{ trigger.body.order.id }}', total: '{{ trigger.body.order.total }}', note: 'Run {{ run.id }} of {{ workflow.name }}' },
  })
  body!: unknown;
}

export class DelayStepDoc {
  @ApiProperty({ enum: ['delay'] }) type!: 'delay';
  @ApiProperty({ minimum: 1, maximum: 2_592_000, example: 3600, description: 'Seconds to wait (1 s to 30 days); the wait survives restarts.' }) seconds!: number;
}

const STEP_SCHEMA = { oneOf: [{ $ref: getSchemaPath(SendWebhookStepDoc) }, { $ref: getSchemaPath(DelayStepDoc) }] };

/** Documents the workflow body; validation is the domain's (libs/automations workflow-definition.ts). */
@ApiExtraModels(SendWebhookStepDoc, DelayStepDoc)
export class WorkflowBodyDoc {
  @ApiProperty({ example: 'Paid orders to CRM', minLength: 1, maxLength: 200 }) name!: string;
  @ApiProperty({ type: IncomingWebhookTriggerDoc }) trigger!: IncomingWebhookTriggerDoc;
  @ApiProperty({ type: 'array', items: STEP_SCHEMA, minItems: 1, maxItems: WORKFLOW_LIMITS.maxSteps }) steps!: Array<SendWebhookStepDoc | DelayStepDoc>;
}

@ApiExtraModels(SendWebhookStepDoc, DelayStepDoc)
export class WorkflowView {
  @ApiProperty({ example: WORKFLOW_ID }) id!: string;
  @ApiProperty({ example: 'Paid orders to CRM' }) name!: string;
  @ApiProperty({ enum: ['draft', 'active', 'inactive'] }) state!: string;
  @ApiProperty({ type: IncomingWebhookTriggerDoc }) trigger!: IncomingWebhookTriggerDoc;
  @ApiProperty({ type: 'array', items: STEP_SCHEMA }) steps!: unknown[];
  @ApiProperty({ example: '2025-11-22T02:00:00.000Z' }) createdAt!: string;
  @ApiProperty({ example: '2025-11-22T02:00:00.000Z' }) updatedAt!: string;
}

export class ActivatedWorkflowView extends WorkflowView {
  @ApiProperty({
    example: 'https://webhooks.example.com/hooks/q3Zc0n...',
    description: 'The secret trigger URL: shown in this response alone; every activation issues a new one and voids the previous one.',
  })
  triggerUrl!: string;
}

export class WorkflowListView {
  @ApiProperty({ type: [WorkflowView] }) workflows!: WorkflowView[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as ?cursor= for the next page; null on the last one' }) nextCursor!: string | null;
}

// ---------------------------------------------------------------- runs

/** `?limit=&cursor=` of a workflow's runs (newest first). */
export class RunsQuery extends ListPageQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 20 })
  declare limit?: string;
}

export class StepAttemptView {
  @ApiProperty({ example: '2025-11-22T02:00:01.000Z' }) at!: string;
  @ApiProperty({ example: 84 }) durationMs!: number;
  @ApiProperty({ type: Number, nullable: true, example: 200 }) httpStatus!: number | null;
  @ApiProperty({
    type: String,
    nullable: true,
    enum: TRANSPORT_ERROR_KINDS,
    description: 'null whenever an HTTP answer arrived',
  })
  error!: string | null;
}

export class RunStepView {
  @ApiProperty({ enum: ['send_webhook', 'delay'] }) type!: string;
  @ApiProperty({ enum: ['pending', 'running', 'succeeded', 'failed', 'skipped'] }) status!: string;
  @ApiProperty({ type: [StepAttemptView] }) attempts!: StepAttemptView[];
}

export class RunTriggerView {
  @ApiAnyJsonProperty({ description: 'The JSON body the trigger URL received (null for a body stored before the 64-level depth limit that nests deeper).', example: { order: { id: 'o-1', total: 12.5 } } }) body!: unknown;
}

export class RunView {
  @ApiProperty({ example: RUN_ID }) id!: string;
  @ApiProperty({ enum: ['running', 'succeeded', 'failed'] }) status!: string;
  @ApiProperty({ example: '2025-11-22T02:00:00.000Z' }) startedAt!: string;
  @ApiProperty({ type: String, nullable: true, example: '2025-11-22T02:00:01.000Z' }) finishedAt!: string | null;
  @ApiProperty({ type: RunTriggerView }) trigger!: RunTriggerView;
  @ApiProperty({ type: [RunStepView] }) steps!: RunStepView[];
}

export class RunListView {
  @ApiProperty({ type: [RunView], description: 'Newest first.' }) runs!: RunView[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as ?cursor= for the next (older) page; null on the last page.' }) nextCursor!: string | null;
}

export class TriggerAcceptedView {
  @ApiProperty({ example: RUN_ID }) runId!: string;
}
