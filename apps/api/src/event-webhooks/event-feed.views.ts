import { ApiProperty } from '@nestjs/swagger';
import { snakeCaseModel } from '../openapi/snake-case-model';

/**
 * The event feed's answers. The envelope is the delivery body (CONTRACT §3), the same JSON in both
 * families but for `apiVersion`, and has no twin: only the page's own key is renamed for v2.
 */
export class EnvelopeAccountView {
  @ApiProperty({ type: 'integer', example: 42 }) id!: number;
  @ApiProperty({ example: 'Acme' }) name!: string;
}

export class EnvelopeView {
  @ApiProperty({ example: 'evt_01jd2x7q9m3k8p4r6t1v5w0y2z' }) id!: string;
  @ApiProperty({ example: 'email.delivered' }) type!: string;
  @ApiProperty({ type: 'integer', example: 1732238400, description: 'Unix seconds' }) created!: number;
  @ApiProperty({ enum: ['v3', 'v2'], description: 'The family of the route that serves it; the envelope is never snake_cased' }) apiVersion!: string;
  @ApiProperty({ type: EnvelopeAccountView }) account!: EnvelopeAccountView;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'Valid against the schema of its type in GET /v3/events/types' })
  data!: Record<string, unknown>;
}

export class EventFeedPageV3View {
  @ApiProperty({ type: [EnvelopeView], description: 'Newest first' }) events!: EnvelopeView[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as cursor for the next page; null on the last' }) nextCursor!: string | null;
}

export const EventFeedPageV2View = snakeCaseModel(EventFeedPageV3View, 'EventFeedPageV2View');

export const EVENT_FEED_VIEWS = { v3: EventFeedPageV3View, v2: EventFeedPageV2View };
