import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBadRequestResponse, ApiBearerAuth, ApiBody, ApiNotFoundResponse, ApiOperation, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { EventIntakeService } from '../../../../libs/event-webhooks/src';
import { DomainError, type NewEvent } from '../../../../libs/kernel/src';
import { InternalTokenGuard } from '../http/guards';
import { PublishEventBatchDto, PublishEventDto } from './event-webhooks.dto';
import { ERROR_SCHEMA } from './event-webhooks.schemas';

const error = { schema: ERROR_SCHEMA };

/** Producers publish account events here (Bearer INTERNAL_TOKEN). */
@ApiTags('producers')
@ApiBearerAuth('internal')
@ApiUnauthorizedResponse(error)
@UseGuards(InternalTokenGuard)
@Controller('internal/events')
export class InternalEventsController {
  constructor(private readonly intake: EventIntakeService) {}

  @Post()
  @HttpCode(202)
  @ApiOperation({ operationId: 'publishEvent', summary: 'Publish one event: stored, then delivered to every subscribed webhook of the account' })
  @ApiAcceptedResponse({ schema: { type: 'object', required: ['id'], properties: { id: { type: 'string', example: 'evt_01jd2x7q9m3k8p4r6t1v5w0y2z' } } } })
  @ApiBadRequestResponse({ description: 'invalid_parameter: unknown type, or data not matching its schema', ...error })
  @ApiNotFoundResponse({ description: 'Unknown accountId', ...error })
  async publish(@Body() body: PublishEventDto): Promise<{ id: string }> {
    const [id] = await this.intake.publish([body as NewEvent]);
    return { id };
  }

  /**
   * The body is taken as parsed, not through the DTO pipe: class-transformer and class-validator
   * walking 1000 events cost more than storing them, and the intake checks every event anyway.
   */
  @Post('batch')
  @HttpCode(202)
  @ApiOperation({ operationId: 'publishEvents', summary: 'Publish up to 1000 events at once, all or none' })
  @ApiBody({ type: PublishEventBatchDto })
  @ApiAcceptedResponse({ schema: { type: 'object', required: ['ids'], properties: { ids: { type: 'array', items: { type: 'string' } } } } })
  @ApiBadRequestResponse({ description: 'invalid_parameter (naming the event), or limit_exceeded beyond 1000 events', ...error })
  @ApiNotFoundResponse({ description: 'Unknown accountId', ...error })
  async publishBatch(@Body() body: object): Promise<{ ids: string[] }> {
    return { ids: await this.intake.publish(eventsOf(body)) };
  }
}

function eventsOf(body: unknown): NewEvent[] {
  const { events, ...rest } = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as { events?: unknown };
  if (!Array.isArray(events)) throw new DomainError('invalid_parameter', 'events must be an array of events');
  const [unexpected] = Object.keys(rest);
  if (unexpected !== undefined) throw new DomainError('invalid_parameter', `property ${unexpected} should not exist`);
  return events as NewEvent[];
}
