import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Type } from '@nestjs/common';
import { NoBody, TakesNoBody } from '../http/no-body';
import { NoQuery } from '../http/no-query';
import { ApiAcceptedResponse, ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Account } from '../../../../libs/accounts/src';
import { ApiFamily, MAX_EVENTS_PER_WEBHOOK, MAX_WEBHOOKS_PER_ACCOUNT, WebhookStatsService, WebhooksService } from '../../../../libs/event-webhooks/src';
import { CurrentAccount } from '../http/guards';
import { ApiKeyAuth } from '../http/route-auth';
import { ApiErrors } from '../openapi/api-errors';
import { CreateWebhookDto, ListDeliveriesQuery, RecoverDto, TestWebhookDto, UpdateWebhookDto, WebhookStatsQuery } from './event-webhooks.dto';
import { RecoverAcceptedView, RetryAcceptedView, WEBHOOK_VIEWS, WebhookSecretView } from './event-webhooks.views';
import { WebhookPresenter } from './webhook.presenter';

export interface WebhookRoutes {
  family: ApiFamily;
  /** `v3/Webhook` or `v2/webhooks`. */
  path: string;
}

/**
 * The webhook routes of one API family. Both families share every line of it: the paths, the
 * casing of the JSON and its documentation are the parameters, the domain service is the same.
 */
export function webhooksControllerFor({ family, path }: WebhookRoutes): Type<unknown> {
  const presenter = new WebhookPresenter(family);
  const views = WEBHOOK_VIEWS[family];
  const operation = (name: string, summary: string) => ApiOperation({ operationId: `${family}_${name}`, summary });

  @ApiTags(`event webhooks (${family})`)
  @ApiKeyAuth()
  @Controller(path)
  class WebhooksController {
    constructor(
      readonly webhooks: WebhooksService,
      readonly stats: WebhookStatsService,
    ) {}

    @Post()
    @operation('createWebhook', 'Create a webhook; the response shows its signing secret, once')
    @ApiCreatedResponse({ type: views.created })
    @ApiErrors('invalid_parameter', ['limit_exceeded', `${MAX_WEBHOOKS_PER_ACCOUNT} webhooks per account, or more than ${MAX_EVENTS_PER_WEBHOOK} events`])
    async create(@CurrentAccount() account: Account, @Body() body: CreateWebhookDto) {
      const { webhook, secret } = await this.webhooks.create(account.id, body, family);
      return presenter.webhook(webhook, secret);
    }

    @Get()
    @operation('listWebhooks', 'List the webhooks of the account, oldest first')
    @ApiOkResponse({ type: views.list })
    async list(@CurrentAccount() account: Account, @Query() _query: NoQuery) {
      return presenter.webhooks(await this.webhooks.list(account.id));
    }

    @Get(':id')
    @operation('getWebhook', 'Read a webhook')
    @ApiOkResponse({ type: views.webhook })
    @ApiErrors('not_found')
    async get(@CurrentAccount() account: Account, @Param('id') id: string) {
      return presenter.webhook(await this.webhooks.get(account.id, id));
    }

    @Put(':id')
    @operation('updateWebhook', 'Change the url, events or description of a webhook (fields left out stay as they are)')
    @ApiOkResponse({ type: views.webhook })
    @ApiErrors('invalid_parameter', 'limit_exceeded', 'not_found')
    async update(@CurrentAccount() account: Account, @Param('id') id: string, @Body() body: UpdateWebhookDto) {
      return presenter.webhook(await this.webhooks.update(account.id, id, body));
    }

    @Delete(':id')
    @HttpCode(204)
    @operation('deleteWebhook', 'Delete a webhook; its waiting deliveries are cancelled')
    @ApiNoContentResponse({ description: 'Deleted' })
    @ApiErrors('not_found')
    async remove(@CurrentAccount() account: Account, @Param('id') id: string): Promise<void> {
      await this.webhooks.delete(account.id, id);
    }

    @Post(':id/enable')
    @HttpCode(200)
    @operation('enableWebhook', 'Enable a webhook: failure count 0, deliveries of new events resume')
    @ApiOkResponse({ type: views.webhook })
    @ApiErrors('not_found')
    @TakesNoBody()
    async enable(@CurrentAccount() account: Account, @Param('id') id: string, @Body() _none?: NoBody) {
      return presenter.webhook(await this.webhooks.enable(account.id, id));
    }

    @Post(':id/disable')
    @HttpCode(200)
    @operation('disableWebhook', 'Disable a webhook: waiting deliveries and new events are recorded as skipped')
    @ApiOkResponse({ type: views.webhook })
    @ApiErrors('not_found')
    @TakesNoBody()
    async disable(@CurrentAccount() account: Account, @Param('id') id: string, @Body() _none?: NoBody) {
      return presenter.webhook(await this.webhooks.disable(account.id, id));
    }

    @Post(':id/rotate-secret')
    @HttpCode(200)
    @operation('rotateWebhookSecret', 'Issue a new signing secret, shown once; the old one keeps signing beside it for SECRET_ROTATION_GRACE (24 h)')
    @ApiOkResponse({ type: WebhookSecretView })
    @ApiErrors('not_found')
    @TakesNoBody()
    async rotateSecret(@CurrentAccount() account: Account, @Param('id') id: string, @Body() _none?: NoBody) {
      return this.webhooks.rotateSecret(account.id, id);
    }

    @Post(':id/test')
    @HttpCode(202)
    @operation('testWebhook', 'Send a sample event of the given type (default email.delivered) to this webhook only')
    @ApiBody({ type: TestWebhookDto, required: false })
    @ApiAcceptedResponse({ type: views.testAccepted })
    @ApiErrors(['invalid_parameter', 'not an event type of the catalog, or an unknown field'], 'not_found')
    async test(@CurrentAccount() account: Account, @Param('id') id: string, @Body() body?: TestWebhookDto) {
      const { eventId } = await this.webhooks.sendTest(account.id, id, body?.type);
      return presenter.testAccepted(eventId);
    }

    @Get(':id/deliveries')
    @operation('listWebhookDeliveries', 'List the deliveries of a webhook, newest first')
    @ApiOkResponse({ type: views.deliveryPage })
    @ApiErrors(['invalid_parameter', 'an unknown status, a limit outside 1 to 100 or a cursor not from this list'], 'not_found')
    async deliveries(@CurrentAccount() account: Account, @Param('id') id: string, @Query() query: ListDeliveriesQuery) {
      const limit = query.limit === undefined ? undefined : Number(query.limit);
      return presenter.deliveryPage(await this.webhooks.listDeliveries(account.id, id, { status: query.status, cursor: query.cursor, limit }));
    }

    @Get(':id/stats')
    @operation('getWebhookStats', 'Deliveries by status, attempts, success rate, latency and attempts per hour, since a time (default 24 hours ago)')
    @ApiOkResponse({ type: views.stats })
    @ApiErrors(['invalid_parameter', 'since not an ISO 8601 time, in the future, or more than 31 days ago'], 'not_found')
    async getStats(@CurrentAccount() account: Account, @Param('id') id: string, @Query() query: WebhookStatsQuery) {
      return presenter.stats(await this.stats.stats(account.id, id, query.since));
    }

    @Get(':id/deliveries/:deliveryId')
    @operation('getWebhookDelivery', 'One delivery of a webhook, with its attempts')
    @ApiOkResponse({ type: views.delivery })
    @ApiErrors('not_found')
    async delivery(@CurrentAccount() account: Account, @Param('id') id: string, @Param('deliveryId') deliveryId: string) {
      return presenter.oneDelivery(await this.webhooks.getDelivery(account.id, id, deliveryId));
    }

    @Post(':id/deliveries/:deliveryId/retry')
    @HttpCode(202)
    @operation('retryWebhookDelivery', 'One more attempt of a delivery now, with the same event id')
    @ApiAcceptedResponse({ type: RetryAcceptedView })
    @ApiErrors(['invalid_parameter', 'the webhook is disabled (enable it first)'], 'not_found')
    @TakesNoBody()
    async retry(@CurrentAccount() account: Account, @Param('id') id: string, @Param('deliveryId') deliveryId: string, @Body() _none?: NoBody) {
      await this.webhooks.retryDelivery(account.id, id, deliveryId);
      return {};
    }

    @Post(':id/recover')
    @HttpCode(202)
    @operation('recoverWebhook', 'Deliver again every failed or skipped delivery created at or after since')
    @ApiAcceptedResponse({ type: RecoverAcceptedView })
    @ApiErrors(['invalid_parameter', 'since is not an ISO 8601 timestamp, or the webhook is disabled (enable it first)'], 'not_found')
    async recover(@CurrentAccount() account: Account, @Param('id') id: string, @Body() body: RecoverDto) {
      return this.webhooks.recover(account.id, id, body.since);
    }
  }
  Object.defineProperty(WebhooksController, 'name', { value: `${family.toUpperCase()}WebhooksController` });
  return WebhooksController;
}

