import { Controller, Get, Param, Query, Type, UseGuards } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { Account } from '../../../../libs/accounts/src';
import { ApiFamily, EventFeedService } from '../../../../libs/event-webhooks/src';
import { ApiKeyGuard, CurrentAccount } from '../http/guards';
import { ListEventsQuery } from './event-webhooks.dto';
import { ENVELOPE_SCHEMA, ERROR_SCHEMA, eventFeedSchema } from './event-webhooks.schemas';
import { eventFeedPage } from './event-feed.presenter';

/**
 * `GET /{family}/events` and `/{family}/events/{id}` (CONTRACT §9.2). `/{family}/events/types`,
 * the catalog, is a static path: Fastify's router tries it before this `{id}`.
 */
function eventFeedControllerFor(family: ApiFamily): Type<unknown> {
  const error = { schema: ERROR_SCHEMA };

  @ApiTags(`event webhooks (${family})`)
  @ApiSecurity('api-key')
  @ApiUnauthorizedResponse({ description: 'Missing or wrong api-key', ...error })
  @UseGuards(ApiKeyGuard)
  @Controller(`${family}/events`)
  class EventFeedController {
    constructor(readonly feed: EventFeedService) {}

    @Get()
    @ApiOperation({ operationId: `${family}_listEvents`, summary: 'Every event of the account, newest first, as its webhooks receive it' })
    @ApiOkResponse({ schema: eventFeedSchema(family) })
    @ApiBadRequestResponse({ description: 'invalid_parameter: an unknown type, a bad since, limit or cursor', ...error })
    async list(@CurrentAccount() account: Account, @Query() query: ListEventsQuery) {
      const limit = query.limit === undefined ? undefined : Number(query.limit);
      return eventFeedPage(await this.feed.list(account.id, family, { type: query.type, since: query.since, cursor: query.cursor, limit }), family);
    }

    @Get(':id')
    @ApiOperation({ operationId: `${family}_getEvent`, summary: 'One event: the same JSON value as the body its deliveries carry' })
    @ApiOkResponse({ schema: ENVELOPE_SCHEMA })
    @ApiNotFoundResponse(error)
    async get(@CurrentAccount() account: Account, @Param('id') id: string) {
      return this.feed.get(account.id, family, id);
    }
  }

  Object.defineProperty(EventFeedController, 'name', { value: `${family.toUpperCase()}EventFeedController` });
  return EventFeedController;
}

export const V3EventFeedController = eventFeedControllerFor('v3');
export const V2EventFeedController = eventFeedControllerFor('v2');
