import { Controller, Get, Param, Query, Type } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Account } from '../../../../libs/accounts/src';
import { ApiFamily, EventDeliveriesService, EventFeedService } from '../../../../libs/event-webhooks/src';
import { CurrentAccount } from '../http/guards';
import { ApiKeyAuth } from '../http/route-auth';
import { ApiErrors } from '../openapi/api-errors';
import { ListEventsQuery } from './event-webhooks.dto';
import { EVENT_FEED_VIEWS, EnvelopeView } from './event-feed.views';
import { eventFeedPage } from './event-feed.presenter';
import { WEBHOOK_VIEWS } from './event-webhooks.views';
import { WebhookPresenter } from './webhook.presenter';

/**
 * `GET /{family}/events` and `/{family}/events/{id}` (CONTRACT §9.2). `/{family}/events/types`,
 * the catalog, is a static path: Fastify's router tries it before this `{id}`.
 */
function eventFeedControllerFor(family: ApiFamily): Type<unknown> {
  const presenter = new WebhookPresenter(family);
  @ApiTags(`event webhooks (${family})`)
  @ApiKeyAuth()
  @Controller(`${family}/events`)
  class EventFeedController {
    constructor(
      readonly feed: EventFeedService,
      readonly deliveries: EventDeliveriesService,
    ) {}

    @Get()
    @ApiOperation({ operationId: `${family}_listEvents`, summary: 'Every event of the account, newest first, as its webhooks receive it' })
    @ApiOkResponse({ type: EVENT_FEED_VIEWS[family] })
    @ApiErrors(['invalid_parameter', 'an unknown type, or a bad since, limit or cursor'])
    async list(@CurrentAccount() account: Account, @Query() query: ListEventsQuery) {
      const limit = query.limit === undefined ? undefined : Number(query.limit);
      return eventFeedPage(await this.feed.list(account.id, family, { type: query.type, since: query.since, cursor: query.cursor, limit }), family);
    }

    @Get(':id')
    @ApiOperation({ operationId: `${family}_getEvent`, summary: 'One event: the same JSON value as the body its deliveries carry' })
    @ApiOkResponse({ type: EnvelopeView })
    @ApiErrors(['not_found', 'no such event in this account'])
    async get(@CurrentAccount() account: Account, @Param('id') id: string) {
      return this.feed.get(account.id, family, id);
    }

    @Get(':id/deliveries')
    @ApiOperation({ operationId: `${family}_listEventDeliveries`, summary: 'Where one event went: its delivery on each webhook it was sent to, with their attempts' })
    @ApiOkResponse({ type: WEBHOOK_VIEWS[family].eventDeliveries })
    @ApiErrors(['not_found', 'no such event in this account'])
    async listDeliveries(@CurrentAccount() account: Account, @Param('id') id: string) {
      return presenter.eventDeliveries(await this.deliveries.list(account.id, id));
    }
  }

  Object.defineProperty(EventFeedController, 'name', { value: `${family.toUpperCase()}EventFeedController` });
  return EventFeedController;
}

export const V3EventFeedController = eventFeedControllerFor('v3');
export const V2EventFeedController = eventFeedControllerFor('v2');
