import type { ValueProvider } from '@nestjs/common';
import type { AppConfig } from '../../config/load-config';
import { AutomationsSettings } from '../automations/src/automations.settings';
import { EventWebhooksSettings } from '../event-webhooks/src/event-webhooks.settings';
import { IncomingTriggerSettings } from '../incoming-trigger/src/incoming-trigger.settings';
import { EventRetentionPeriod, SweepSettings } from '../kernel/src';
import { SendStatusSettings } from '../send-status/src/send-status.settings';
import { WebhookTargetsSettings } from '../webhook-targets/src/webhook-targets.settings';
import { WorkerHostSettings } from '../dispatch/src/worker-host';

/**
 * Each domain lib's settings, built once from the validated configuration: the domain modules
 * receive them and never read `config/` themselves.
 */
export function domainSettingsProviders({ delivery, secrets, http, triggers, sendStatus, retention, runtime }: AppConfig): ValueProvider[] {
  const settings = [
    new EventWebhooksSettings(
      delivery.retryScheduleMs,
      delivery.disableAfter,
      delivery.allowPrivateTargets,
      secrets.rotationGraceMs,
      delivery.timeoutMs,
      delivery.originConcurrency,
      delivery.concurrency,
    ),
    new SweepSettings(delivery.sweepIntervalMs, delivery.sweepAfterMs),
    new WebhookTargetsSettings(delivery.allowPrivateTargets, delivery.timeoutMs),
    new AutomationsSettings(delivery.targetRetryScheduleMs, http.publicBaseUrl, delivery.concurrency, delivery.originConcurrency),
    new IncomingTriggerSettings({ burst: triggers.rateLimitBurst, perSecond: triggers.rateLimitPerSecond }),
    new SendStatusSettings(sendStatus.retentionDays),
    new EventRetentionPeriod(retention.eventDays),
    new WorkerHostSettings(delivery.concurrency, delivery.maxHandlerFailures, runtime.shutdownGraceMs),
  ];
  return settings.map((value) => ({ provide: value.constructor, useValue: value }));
}
