import { randomBytes } from 'node:crypto';
import { SecretBox } from '../../../kernel/src';
import { EventCatalog } from '../catalog/event-catalog';
import { DeliveryWorker } from '../deliveries/delivery.worker';
import { DeliveryAttemptOutcome, DeliveryObserver } from '../deliveries/delivery-observer';
import { OriginLimiter } from '../deliveries/origin-limiter';
import { EventWebhooksSettings } from '../event-webhooks.settings';
import { EventIntakeService } from '../intake/event-intake.service';
import { WebhooksService } from '../webhooks/webhooks.service';
import { ImmediateUnitOfWork, InMemoryAccountRepository, InMemoryWorkQueue, ManualClock, ScriptedOutboundHttp } from './fake-kernel';
import { InMemoryDeliveryRepository, InMemoryEventRepository } from './in-memory-delivery.repository';
import { InMemoryWebhookRepository } from './in-memory-webhook.repository';

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
    ...overrides,
  };
  const clock = new ManualClock();
  const uow = new ImmediateUnitOfWork();
  const queue = new InMemoryWorkQueue(uow);
  const http = new ScriptedOutboundHttp();
  const accounts = new InMemoryAccountRepository();
  const webhooks = new InMemoryWebhookRepository();
  const events = new InMemoryEventRepository();
  const deliveries = new InMemoryDeliveryRepository(events);
  const secretBox = new SecretBox(randomBytes(32));
  const observer = new RecordingDeliveryObserver();
  const intake = new EventIntakeService(catalog, accounts, webhooks, events, deliveries, queue, uow, clock);
  const service = new WebhooksService(webhooks, deliveries, catalog, intake, secretBox, queue, uow, clock, settings);
  const worker = new DeliveryWorker(deliveries, webhooks, http, secretBox, queue, uow, clock, settings, new OriginLimiter(settings.originConcurrency), observer);
  return { observer, settings, clock, uow, queue, http, accounts, webhooks, events, deliveries, secretBox, catalog, intake, service, worker };
}

/** Keeps every attempt it was told of, for assertions. */
export class RecordingDeliveryObserver extends DeliveryObserver {
  readonly attempts: Array<{ outcome: DeliveryAttemptOutcome; durationMs: number }> = [];
  attempted(outcome: DeliveryAttemptOutcome, durationMs: number): void {
    this.attempts.push({ outcome, durationMs });
  }
}

export type EventWebhooksHarness = ReturnType<typeof eventWebhooksHarness>;
