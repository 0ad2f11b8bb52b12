import { ApiProperty } from '@nestjs/swagger';
import { DELIVERY_STATUSES, MAX_DESCRIPTION_LENGTH, MAX_EVENTS_PER_WEBHOOK } from '../../../../libs/event-webhooks/src';
import { TARGET_URL_MAX_LENGTH, TRANSPORT_ERROR_KINDS } from '../../../../libs/kernel/src';
import { snakeCaseModel } from '../openapi/snake-case-model';

/**
 * Response shapes of the event-webhooks routes, written once in camelCase (v3); the v2 forms are
 * their snake_case twins, as the presenters produce them. Names end in V3View / V2View; shapes
 * whose keys are single words (the same in both families) have one class.
 */
const EVENT_ID = 'evt_01jd2x7q9m3k8p4r6t1v5w0y2z';
const TIME = { type: String, format: 'date-time', example: '2025-11-22T02:00:00.000Z' } as const;
const NULLABLE_TIME = { ...TIME, nullable: true } as const;
const SECRET = {
  example: 'whsec_+ZGBPKBiq50JD6BjzQQrb3+3fjqhXExmh0LwsbTOhHg=',
  description: 'The signing secret. Shown once: store it now.',
};

export class WebhookV3View {
  @ApiProperty({ example: 'wh_01jd2x7q9m3k8p4r6t1v5w0y2z' }) id!: string;
  @ApiProperty({ format: 'uri', maxLength: TARGET_URL_MAX_LENGTH, example: 'https://crm.example.com/hooks/service' }) url!: string;
  @ApiProperty({ type: [String], minItems: 1, maxItems: MAX_EVENTS_PER_WEBHOOK, example: ['email.delivered', 'email.bounced'] }) events!: string[];
  @ApiProperty({ type: String, nullable: true, maxLength: MAX_DESCRIPTION_LENGTH, example: 'CRM sync' }) description!: string | null;
  @ApiProperty({ enum: ['enabled', 'disabled'], enumName: 'WebhookState' }) state!: string;
  @ApiProperty({ enum: ['v3', 'v2'], description: 'The API family that created the webhook; its deliveries carry it as apiVersion' }) apiVersion!: string;
  @ApiProperty({ type: 'integer', minimum: 0 }) consecutiveFailures!: number;
  @ApiProperty({ ...NULLABLE_TIME, description: 'When it was disabled, null while enabled' }) disabledAt!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    enum: ['consecutive_failures', 'manual'],
    description: 'Why it is disabled: by the failure counter or by the disable route; null while enabled',
  })
  disabledReason!: string | null;
  @ApiProperty(TIME) createdAt!: string;
  @ApiProperty(TIME) updatedAt!: string;
}

/** The create answer alone carries the secret. */
export class CreatedWebhookV3View extends WebhookV3View {
  @ApiProperty(SECRET) secret!: string;
}

export class WebhookListV3View {
  @ApiProperty({ type: [WebhookV3View] }) webhooks!: WebhookV3View[];
}

export class DeliveryAttemptV3View {
  @ApiProperty({ ...TIME, description: 'When the attempt started' }) at!: string;
  @ApiProperty({ type: 'integer', minimum: 0, example: 84 }) durationMs!: number;
  @ApiProperty({ type: 'integer', nullable: true, example: 500, description: 'Null when no HTTP answer arrived' }) httpStatus!: number | null;
  @ApiProperty({
    type: String,
    nullable: true,
    enum: TRANSPORT_ERROR_KINDS,
    enumName: 'AttemptError',
    description: 'Null whenever an HTTP answer arrived',
  })
  error!: string | null;
  @ApiProperty({ description: 'The start of the answer body, at most 4 KB (empty when none arrived)' }) responseBody!: string;
  /** Header names are values here, not keys of the API: the v2 twin keeps them as sent. */
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    nullable: true,
    example: { 'content-type': 'application/json', 'x-service-event-id': EVENT_ID, 'x-service-event-type': 'email.delivered' },
    description: 'Every header the call carried on the wire (host, connection and content-length included), names in lowercase and the same in both families; null for attempts made before they were kept',
  })
  requestHeaders!: Record<string, string> | null;
}

export class DeliveryV3View {
  @ApiProperty({ example: 'del_01jd2x7q9m3k8p4r6t1v5w0y2z' }) id!: string;
  @ApiProperty({ example: EVENT_ID }) eventId!: string;
  @ApiProperty({ example: 'email.delivered' }) eventType!: string;
  @ApiProperty({ enum: DELIVERY_STATUSES, enumName: 'DeliveryStatus' }) status!: string;
  @ApiProperty({ type: [DeliveryAttemptV3View] }) attempts!: DeliveryAttemptV3View[];
  @ApiProperty({ ...NULLABLE_TIME, description: 'When the next attempt is due, null when none is' }) nextAttemptAt!: string | null;
  @ApiProperty(TIME) createdAt!: string;
}

export class DeliveryPageV3View {
  @ApiProperty({ type: [DeliveryV3View], description: 'Newest first' }) deliveries!: DeliveryV3View[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as cursor for the next page; null on the last' }) nextCursor!: string | null;
}

export class EventDeliveryV3View extends DeliveryV3View {
  @ApiProperty({ example: 'wh_01jd2x7q9m3k8p4r6t1v5w0y2z', description: 'The webhook it went to (it may have been deleted since)' }) webhookId!: string;
}

export class EventDeliveryListV3View {
  @ApiProperty({ type: [EventDeliveryV3View], description: "One per webhook the event went to, in the order of the webhooks' creation; empty when none subscribed to it" })
  deliveries!: EventDeliveryV3View[];
}

export class TestEventAcceptedV3View {
  @ApiProperty({ example: EVENT_ID, description: 'The id of the sample event' }) eventId!: string;
}

const COUNT = { type: 'integer', minimum: 0 } as const;

export class DeliveryCountsView {
  @ApiProperty(COUNT) pending!: number;
  @ApiProperty(COUNT) retrying!: number;
  @ApiProperty(COUNT) succeeded!: number;
  @ApiProperty(COUNT) failed!: number;
  @ApiProperty(COUNT) skipped!: number;
  @ApiProperty(COUNT) cancelled!: number;
}

export class AttemptCountsView {
  @ApiProperty(COUNT) total!: number;
  @ApiProperty(COUNT) succeeded!: number;
  @ApiProperty(COUNT) failed!: number;
}

export class LatencyView {
  @ApiProperty({ type: 'integer', nullable: true, example: 84, description: 'Median attempt duration, within 5 %; null without attempts' }) p50!: number | null;
  @ApiProperty({ type: 'integer', nullable: true, example: 310, description: '95th percentile, within 5 %; null without attempts' }) p95!: number | null;
}

export class HourlyAttemptsView {
  @ApiProperty({ ...TIME, example: '2025-11-22T02:00:00.000Z', description: 'The hour, on the hour' }) start!: string;
  @ApiProperty(COUNT) succeeded!: number;
  @ApiProperty(COUNT) failed!: number;
}

export class WebhookStatsV3View {
  @ApiProperty({ ...TIME, description: 'The since asked for (or 24 hours ago): deliveries created at or after it are counted, with their attempts' }) since!: string;
  @ApiProperty({ ...TIME, description: 'When the stats were read' }) until!: string;
  @ApiProperty({ type: DeliveryCountsView, description: 'Deliveries created since `since`, by status' }) deliveries!: DeliveryCountsView;
  @ApiProperty({ type: AttemptCountsView, description: 'The attempts of those deliveries' }) attempts!: AttemptCountsView;
  @ApiProperty({ type: Number, nullable: true, minimum: 0, maximum: 1, example: 0.98, description: 'Succeeded attempts / attempts; null without attempts' })
  successRate!: number | null;
  @ApiProperty({ type: LatencyView }) latencyMs!: LatencyView;
  @ApiProperty({
    type: [HourlyAttemptsView],
    description: 'One per hour from the hour of since to the hour of until, oldest first, zeros included; an attempt counts in the hour its delivery was created',
  })
  buckets!: HourlyAttemptsView[];
}

export const WebhookV2View = snakeCaseModel(WebhookV3View, 'WebhookV2View');
export const CreatedWebhookV2View = snakeCaseModel(CreatedWebhookV3View, 'CreatedWebhookV2View');
export const WebhookListV2View = snakeCaseModel(WebhookListV3View, 'WebhookListV2View');
export const DeliveryAttemptV2View = snakeCaseModel(DeliveryAttemptV3View, 'DeliveryAttemptV2View');
export const DeliveryV2View = snakeCaseModel(DeliveryV3View, 'DeliveryV2View');
export const DeliveryPageV2View = snakeCaseModel(DeliveryPageV3View, 'DeliveryPageV2View');
export const EventDeliveryV2View = snakeCaseModel(EventDeliveryV3View, 'EventDeliveryV2View');
export const EventDeliveryListV2View = snakeCaseModel(EventDeliveryListV3View, 'EventDeliveryListV2View');
export const TestEventAcceptedV2View = snakeCaseModel(TestEventAcceptedV3View, 'TestEventAcceptedV2View');
export const WebhookStatsV2View = snakeCaseModel(WebhookStatsV3View, 'WebhookStatsV2View');

/** Both families, by name: what the controller factory documents. */
export const WEBHOOK_VIEWS = {
  v3: { webhook: WebhookV3View, created: CreatedWebhookV3View, list: WebhookListV3View, delivery: DeliveryV3View, deliveryPage: DeliveryPageV3View, eventDeliveries: EventDeliveryListV3View, testAccepted: TestEventAcceptedV3View, stats: WebhookStatsV3View },
  v2: { webhook: WebhookV2View, created: CreatedWebhookV2View, list: WebhookListV2View, delivery: DeliveryV2View, deliveryPage: DeliveryPageV2View, eventDeliveries: EventDeliveryListV2View, testAccepted: TestEventAcceptedV2View, stats: WebhookStatsV2View },
};

export class WebhookSecretView {
  @ApiProperty(SECRET) secret!: string;
}

export class RecoverAcceptedView {
  @ApiProperty({ type: 'integer', minimum: 0, example: 12, description: 'Deliveries requeued' }) count!: number;
}

/** The retry answer is an empty object. */
export class RetryAcceptedView {}

export class EventTypeView {
  @ApiProperty({ example: 'email.delivered' }) type!: string;
  @ApiProperty({ example: 'email' }) group!: string;
  @ApiProperty({ example: 'The recipient server accepted the email' }) description!: string;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'JSON Schema (draft 2020-12) of the event data' }) schema!: Record<string, unknown>;
}

export class EventTypeListView {
  @ApiProperty({ type: [EventTypeView] }) types!: EventTypeView[];
}

export class EventAcceptedView {
  @ApiProperty({ example: EVENT_ID, description: 'The event id (yours when you gave one)' }) id!: string;
}

export class EventsAcceptedView {
  @ApiProperty({ type: [String], example: [EVENT_ID], description: 'The event ids, in input order' }) ids!: string[];
}

