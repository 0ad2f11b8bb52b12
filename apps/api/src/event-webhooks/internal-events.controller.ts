import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { EventIntakeService } from '../../../../libs/event-webhooks/src';
import { DomainError, type NewEvent } from '../../../../libs/kernel/src';
import { InternalAuth } from '../http/route-auth';
import { ApiErrors } from '../openapi/api-errors';
import { PublishEventBatchDto, PublishEventDto } from './event-webhooks.dto';
import { EventAcceptedView, EventsAcceptedView } from './event-webhooks.views';

/** Producers publish account events here (Bearer INTERNAL_TOKEN). */
@ApiTags('producers')
@InternalAuth()
@Controller('internal/events')
export class InternalEventsController {
  constructor(private readonly intake: EventIntakeService) {}

  /**
   * Both routes take the body as parsed, not through the DTO pipe (the DTOs document the shape):
   * the intake checks every event itself, and class-transformer with class-validator cost more than
   * storing the event (a sixth of a single event's CPU, more than that for 1000).
   */
  @Post()
  @HttpCode(202)
  @ApiOperation({ operationId: 'internal_publishEvent', summary: 'Publish one event: stored, then delivered to every subscribed webhook of the account' })
  @ApiBody({ type: PublishEventDto })
  @ApiAcceptedResponse({ type: EventAcceptedView })
  @ApiErrors(['invalid_parameter', 'unknown type, or data not matching its schema'], ['not_found', 'unknown accountId'])
  async publish(@Body() body: object): Promise<{ id: string }> {
    const [id] = await this.intake.publish([body as NewEvent]);
    return { id };
  }

  @Post('batch')
  @HttpCode(202)
  @ApiOperation({ operationId: 'internal_publishEvents', summary: 'Publish up to 1000 events at once, all or none' })
  @ApiBody({ type: PublishEventBatchDto })
  @ApiAcceptedResponse({ type: EventsAcceptedView })
  @ApiErrors(['invalid_parameter', 'an invalid event (named in the message)'], ['limit_exceeded', 'more than 1000 events'], ['not_found', 'unknown accountId'])
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
