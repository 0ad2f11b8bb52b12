import { Controller, Get, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { EventCatalog } from '../../../../libs/event-webhooks/src';
import { ApiKeyGuard } from '../http/guards';
import { ERROR_SCHEMA, EVENT_TYPES_SCHEMA } from './event-webhooks.schemas';

/** The event catalog, the same in both families (its keys are single words). */
@ApiTags('event webhooks (v3)', 'event webhooks (v2)')
@ApiSecurity('api-key')
@ApiUnauthorizedResponse({ schema: ERROR_SCHEMA })
@UseGuards(ApiKeyGuard)
@Controller()
export class EventTypesController {
  private readonly body: { types: Array<{ type: string; group: string; description: string; schema: object }> };

  constructor(catalog: EventCatalog) {
    this.body = { types: catalog.definitions.map(({ type, group, description, schema }) => ({ type, group, description, schema })) };
  }

  @Get(['v3/events/types', 'v2/events/types'])
  @ApiOperation({ operationId: 'listEventTypes', summary: 'The event types a webhook can subscribe to, each with the JSON Schema of its data' })
  @ApiOkResponse({ schema: EVENT_TYPES_SCHEMA })
  list() {
    return this.body;
  }
}
