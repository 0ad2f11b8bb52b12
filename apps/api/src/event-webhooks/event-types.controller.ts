import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { EventCatalog } from '../../../../libs/event-webhooks/src';
import { ApiKeyAuth } from '../http/route-auth';
import { EventTypeListView } from './event-webhooks.views';

const SUMMARY = 'The event types a webhook can subscribe to, each with the JSON Schema of its data';

/** The event catalog, the same in both families (its keys are single words). */
@ApiKeyAuth()
@Controller()
export class EventTypesController {
  private readonly body: EventTypeListView;

  constructor(catalog: EventCatalog) {
    this.body = { types: catalog.definitions.map(({ type, group, description, schema }) => ({ type, group, description, schema })) };
  }

  @Get('v3/events/types')
  @ApiTags('event webhooks (v3)')
  @ApiOperation({ operationId: 'v3_listEventTypes', summary: SUMMARY })
  @ApiOkResponse({ type: EventTypeListView })
  listV3(): EventTypeListView {
    return this.body;
  }

  @Get('v2/events/types')
  @ApiTags('event webhooks (v2)')
  @ApiOperation({ operationId: 'v2_listEventTypes', summary: SUMMARY })
  @ApiOkResponse({ type: EventTypeListView })
  listV2(): EventTypeListView {
    return this.body;
  }
}
