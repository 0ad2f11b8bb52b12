import { Injectable } from '@nestjs/common';
import { generateSecret } from '../../../signing/src';
import { Clock, DomainError, looksLikeId, newId, SecretBox, UnitOfWork, WorkQueue } from '../../../kernel/src';
import { EventCatalog } from '../catalog/event-catalog';
import { Delivery, DeliveryView, deliveryViewOf, isDeliveryStatus, DELIVERY_STATUSES } from '../deliveries/delivery';
import { DeliveryRepository } from '../deliveries/delivery.repository';
import { deliveryWorkItem } from '../deliveries/delivery-work';
import { deliveryNotFound, invalidWebhookParameter, webhookDisabled, webhookLimitExceeded, webhookNotFound } from '../event-webhooks.errors';
import { EventWebhooksSettings } from '../event-webhooks.settings';
import { EventIntakeService } from '../intake/event-intake.service';
import { parseInstant } from '../iso-instant';
import { disableWebhook } from './disable-webhook';
import { findAccountWebhook } from './find-webhook';
import { WebhookStatsRepository } from '../stats/webhook-stats.repository';
import { OperationalEvents } from './operational-events';
import { ApiFamily, checkDescription, checkEvents, checkUrl, MAX_WEBHOOKS_PER_ACCOUNT, viewOf, Webhook, WebhookView } from './webhook';
import { WebhookRepository } from './webhook.repository';
import { afterRotation, openPreviousSecrets, writePreviousSecrets } from './previous-secrets';

export interface WebhookInput {
  url?: unknown;
  events?: unknown;
  description?: unknown;
}

export interface DeliveryListQuery {
  status?: string;
  limit?: number;
  cursor?: string;
}

export interface DeliveryPage {
  deliveries: DeliveryView[];
  nextCursor: string | null;
}

export const DEFAULT_TEST_EVENT_TYPE = 'email.delivered';
export const DEFAULT_DELIVERY_PAGE_SIZE = 20;
export const MAX_DELIVERY_PAGE_SIZE = 100;
const RECOVER_BATCH = 500;

/** The webhook resource of both API families: one service, the families differ only in presentation. */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly webhooks: WebhookRepository,
    private readonly deliveries: DeliveryRepository,
    private readonly catalog: EventCatalog,
    private readonly intake: EventIntakeService,
    private readonly secretBox: SecretBox,
    private readonly queue: WorkQueue,
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly settings: EventWebhooksSettings,
    private readonly notices: OperationalEvents,
    private readonly stats: WebhookStatsRepository,
  ) {}

  /** The secret is returned here alone; it is stored sealed. */
  async create(accountId: number, input: WebhookInput, family: ApiFamily): Promise<{ webhook: WebhookView; secret: string }> {
    // events first: more than 50 is limit_exceeded whatever else is wrong (CONTRACT §2, "checked first")
    const events = checkEvents(input.events, this.catalog);
    const url = checkUrl(input.url, this.settings.allowPrivateTargets);
    const description = checkDescription(input.description);
    const now = this.clock.now();
    const secret = generateSecret();
    const webhook: Webhook = {
      id: newId('wh', now.getTime()),
      accountId,
      url,
      events,
      description,
      state: 'enabled',
      apiVersion: family,
      consecutiveFailures: 0,
      disabledAt: null,
      disabledReason: null,
      createdAt: now,
      updatedAt: now,
      sealedSecret: this.secretBox.seal(secret),
      sealedPreviousSecret: null,
      previousSecretExpiresAt: null,
      pausedUntil: null,
    };
    const inserted = await this.uow.run(() => this.webhooks.insertWithinLimit(webhook, MAX_WEBHOOKS_PER_ACCOUNT));
    if (!inserted) throw webhookLimitExceeded(`an account has at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks`);
    return { webhook: viewOf(webhook), secret };
  }

  async list(accountId: number): Promise<WebhookView[]> {
    return (await this.webhooks.listForAccount(accountId)).map(viewOf);
  }

  async get(accountId: number, id: string): Promise<WebhookView> {
    return viewOf(await this.find(accountId, id));
  }

  /**
   * Changes the fields given (url, events, description) and writes only those: a concurrent change
   * of the others stays as it is.
   */
  async update(accountId: number, id: string, input: WebhookInput): Promise<WebhookView> {
    await this.find(accountId, id);
    const events = input.events === undefined ? undefined : checkEvents(input.events, this.catalog);
    const change = {
      url: input.url === undefined ? undefined : checkUrl(input.url, this.settings.allowPrivateTargets),
      events,
      description: input.description === undefined ? undefined : checkDescription(input.description),
      updatedAt: this.clock.now(),
    };
    await this.webhooks.updateSettings(id, change);
    return this.get(accountId, id);
  }

  /** Deletes the webhook; its waiting deliveries become `cancelled`. Of concurrent deletes one succeeds, the others find it gone. */
  async delete(accountId: number, id: string): Promise<void> {
    await this.find(accountId, id);
    await this.uow.run(async () => {
      await this.deliveries.settleWaiting(id, 'cancelled');
      await this.stats.deleteForWebhook(id);
      if (!(await this.webhooks.delete(id))) throw webhookNotFound(id);
    });
  }

  /** Deliveries of new events resume; skipped ones stay skipped until `recover`. */
  async enable(accountId: number, id: string): Promise<WebhookView> {
    await this.find(accountId, id);
    await this.webhooks.enable(id, this.clock.now());
    return this.get(accountId, id);
  }

  /** Reads the webhook locked, so that `webhook.disabled` carries the failure counter as it stands, not as an earlier read saw it. */
  async disable(accountId: number, id: string): Promise<WebhookView> {
    const ports = { webhooks: this.webhooks, deliveries: this.deliveries, notices: this.notices };
    await this.uow.run(async () => {
      const webhook = await this.find(accountId, id, { lock: true });
      await disableWebhook(ports, webhook, this.clock.now(), 'manual', webhook.consecutiveFailures);
    });
    return this.get(accountId, id);
  }

  /** A new secret; the current one keeps signing beside it for the rotation grace period. */
  async rotateSecret(accountId: number, id: string): Promise<{ secret: string }> {
    // Concurrent rotations take turns: each builds on the one before it (whose secret stays valid
    // as a previous one) instead of overwriting it, so every secret returned signs.
    return this.uow.run(async () => {
      const current = await this.find(accountId, id, { lock: true });
      const now = this.clock.now();
      const secret = generateSecret();
      const rotatedOut = { secret: this.secretBox.open(current.sealedSecret), expiresAt: new Date(now.getTime() + this.settings.rotationGraceMs) };
      const previous = afterRotation(rotatedOut, openPreviousSecrets(current, this.secretBox), now);
      const rotation = {
        replacing: current.sealedSecret,
        sealedSecret: this.secretBox.seal(secret),
        sealedPrevious: this.secretBox.seal(writePreviousSecrets(previous)),
        previousExpiresAt: new Date(Math.max(...previous.map((p) => p.expiresAt.getTime()))),
      };
      if (!(await this.webhooks.replaceSecret(id, rotation, now))) throw new Error(`webhook ${id}: its secret changed under the rotation's lock`);
      return { secret };
    });
  }

  async sendTest(accountId: number, id: string, type: unknown = DEFAULT_TEST_EVENT_TYPE): Promise<{ eventId: string }> {
    const webhook = await this.find(accountId, id);
    if (typeof type !== 'string' || !this.catalog.has(type)) {
      throw invalidWebhookParameter(`type must be an event type of the catalog, got ${JSON.stringify(String(type).slice(0, 100))}`);
    }
    return { eventId: await this.intake.publishSample(webhook, type) };
  }

  async listDeliveries(accountId: number, id: string, query: DeliveryListQuery): Promise<DeliveryPage> {
    const webhook = await this.find(accountId, id);
    const { status, cursor } = query;
    const limit = query.limit ?? DEFAULT_DELIVERY_PAGE_SIZE;
    if (status !== undefined && !isDeliveryStatus(status)) {
      throw invalidWebhookParameter(`status must be one of ${DELIVERY_STATUSES.join(', ')}`);
    }
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_DELIVERY_PAGE_SIZE) {
      throw invalidWebhookParameter(`limit must be an integer from 1 to ${MAX_DELIVERY_PAGE_SIZE}`);
    }
    if (cursor !== undefined && !looksLikeId('del', cursor)) throw invalidWebhookParameter('cursor is not a cursor this list returned');
    const rows = await this.deliveries.listForWebhook(id, { status, limit: limit + 1, beforeId: cursor });
    const page = rows.slice(0, limit);
    return { deliveries: page.map((d) => deliveryViewOf(d, webhook.pausedUntil)), nextCursor: rows.length > limit ? page[page.length - 1].id : null };
  }

  /** One delivery of the webhook with its attempts, as the list shows it. */
  async getDelivery(accountId: number, id: string, deliveryId: string): Promise<DeliveryView> {
    const webhook = await this.find(accountId, id);
    return deliveryViewOf(await this.findDelivery(id, deliveryId), webhook.pausedUntil);
  }

  /** One more attempt now, with the same event id and body. */
  async retryDelivery(accountId: number, id: string, deliveryId: string): Promise<void> {
    const webhook = await this.find(accountId, id);
    await this.findDelivery(id, deliveryId);
    if (webhook.state === 'disabled') throw webhookDisabled(id);
    await this.uow.run(async () => {
      // retryStep at the end of the schedule: a failure of this extra attempt is final at once.
      const scheduled = await this.deliveries.scheduleNow(deliveryId, this.clock.now(), this.settings.retryScheduleMs.length);
      if (scheduled) await this.queue.enqueue([deliveryWorkItem(scheduled.id, scheduled.seq, scheduled.nextAttemptAt)]);
    });
  }

  /** Every failed or skipped delivery created at or after `since` back to pending, with a fresh retry schedule. */
  async recover(accountId: number, id: string, since: unknown): Promise<{ count: number }> {
    const webhook = await this.find(accountId, id);
    const from = parseInstant(since);
    if (webhook.state === 'disabled') throw webhookDisabled(id);
    let count = 0;
    let afterId = '';
    for (;;) {
      const batch = await this.uow.run(async () => {
        const recovered = await this.deliveries.recover(id, from, afterId, this.clock.now(), RECOVER_BATCH);
        if (recovered.length > 0) await this.queue.enqueue(recovered.map((d) => deliveryWorkItem(d.id, d.seq, d.nextAttemptAt)));
        return recovered;
      });
      count += batch.length;
      if (batch.length < RECOVER_BATCH) return { count };
      afterId = batch[batch.length - 1].id;
    }
  }

  /** `lock`: held until the unit of work ends, for a change built on what is read. */
  private find(accountId: number, id: string, options: { lock?: boolean } = {}): Promise<Webhook> {
    return findAccountWebhook(this.webhooks, accountId, id, options);
  }

  private async findDelivery(webhookId: string, deliveryId: string): Promise<Delivery> {
    const delivery = looksLikeId('del', deliveryId) ? await this.deliveries.findForWebhook(webhookId, deliveryId) : null;
    if (!delivery) throw deliveryNotFound(deliveryId);
    return delivery;
  }
}
