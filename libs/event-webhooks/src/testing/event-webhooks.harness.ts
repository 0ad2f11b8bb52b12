import { randomBytes } from 'node:crypto';
import { SecretBox } from '../../../kernel/src';
import { EventCatalog } from '../catalog/event-catalog';
import { DeliveryHandler } from '../deliveries/delivery.handler';
import { AttemptRecorder } from '../deliveries/attempt-recorder';
import { AttemptReport, DeliveryObserver, DeferReport, DisableReport } from '../deliveries/delivery-observer';
import { DispatchLanes } from '../deliveries/lanes';
import { WebhookCache } from '../deliveries/webhook-cache';
import { EventWebhooksSettings } from '../event-webhooks.settings';
import { EventIntakeService } from '../intake/event-intake.service';
import { OperationalEvents } from '../webhooks/operational-events';
import { WebhooksService } from '../webhooks/webhooks.service';
import { InMemoryAccountRepository } from '../../../accounts/src/testing/in-memory-accounts';
import { InMemoryDeliveryRepository } from './in-memory-delivery.repository';
import { InMemoryEventRepository } from './in-memory-event.repository';
import { InMemoryWebhookRepository } from './in-memory-webhook.repository';
import { InMemoryWebhookStatsRepository } from './in-memory-webhook-stats.repository';
import { WebhookStatsService } from '../stats/webhook-stats.service';
import { InMemoryUnitOfWork, InMemoryWorkQueue, ManualClock, ScriptedOutboundHttp } from '../../../kernel/src/testing/kernel-fakes';

const catalog = new EventCatalog();

/** The whole lib wired on in-memory fakes, as the unit tests use it. */
export function eventWebhooksHarness(overrides: Partial<EventWebhooksSettings> = {}) {
  const settings: EventWebhooksSettings = {
    retryScheduleMs: [10_000, 60_000, 300_000],
    disableAfter: 10,
    allowPrivateTargets: false,
    rotationGraceMs: 86_400_000,
    timeoutMs: 10_000,
    originConcurrency: 4,
    concurrency: 8,
    ...overrides,
  };
  const clock = new ManualClock();
  const uow = new InMemoryUnitOfWork();
  const queue = new InMemoryWorkQueue(uow, clock);
  const http = new ScriptedOutboundHttp();
  const accounts = new InMemoryAccountRepository();
  const webhooks = new InMemoryWebhookRepository();
  const events = new InMemoryEventRepository();
  const deliveries = new InMemoryDeliveryRepository(events, (id) => webhooks.rows.get(id) ?? null);
  const stats = new InMemoryWebhookStatsRepository(deliveries);
  const secretBox = new SecretBox(randomBytes(32));
  const observer = new RecordingDeliveryObserver();
  const intake = new EventIntakeService(catalog, accounts, webhooks, events, deliveries, queue, uow, clock, observer);
  const notices = new OperationalEvents(intake);
  const service = new WebhooksService(webhooks, deliveries, catalog, intake, secretBox, queue, uow, clock, settings, notices, stats);
  const lanes = new DispatchLanes({ perOrigin: settings.originConcurrency, firstAttempts: settings.concurrency, retries: settings.concurrency }, () => clock.nowMs());
  const recorder = new AttemptRecorder(deliveries, webhooks, queue, uow, clock, settings, observer, notices, stats);
  const statsService = new WebhookStatsService(webhooks, stats, clock);
  const worker = new DeliveryHandler(deliveries, new WebhookCache(webhooks, secretBox), http, lanes, recorder, clock, settings, observer);
  return { observer, settings, clock, uow, queue, http, accounts, webhooks, events, deliveries, secretBox, catalog, intake, notices, service, recorder, stats, statsService, worker, lanes };
}

/** Keeps every attempt it was told of, for assertions. */
export class RecordingDeliveryObserver extends DeliveryObserver {
  readonly attempts: AttemptReport[] = [];
  readonly disables: DisableReport[] = [];
  readonly deferrals: DeferReport[] = [];
  readonly acceptedEvents: Array<{ eventType: string; count: number }> = [];
  attempted(report: AttemptReport): void {
    this.attempts.push(report);
  }
  disabled(report: DisableReport): void {
    this.disables.push(report);
  }
  accepted(eventType: string, count: number): void {
    this.acceptedEvents.push({ eventType, count });
  }
  deferred(report: DeferReport): void {
    this.deferrals.push(report);
  }
}

export type EventWebhooksHarness = ReturnType<typeof eventWebhooksHarness>;
