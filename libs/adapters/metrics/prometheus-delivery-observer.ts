import { Logger } from '@nestjs/common';
import { Counter, Histogram } from 'prom-client';
import { AttemptReport, DeferReport, DeliveryObserver, DisableReport } from '../../event-webhooks/src/deliveries/delivery-observer';
import { Metrics } from './metrics';
import { OutboundCallSeries } from './outbound-call-series';

/**
 * The dispatcher's observer: attempts by outcome and their duration, the latency from intake to
 * the first attempt, events accepted by type as Prometheus series; one info line per failed
 * attempt and per disabled webhook, with the ids as fields.
 */
export class PrometheusDeliveryObserver extends DeliveryObserver {
  private readonly logger = new Logger('Deliveries');
  private readonly attempts: OutboundCallSeries;
  private readonly firstAttemptLatency: Histogram;
  private readonly acceptedEvents: Counter<'type'>;
  private readonly disabledWebhooks: Counter<'reason'>;
  private readonly deferredDeliveries: Counter;

  constructor(metrics: Metrics) {
    super();
    const registers = [metrics.registry];
    this.attempts = new OutboundCallSeries(metrics.registry, {
      count: 'webhook_delivery_attempts_total',
      countHelp: 'Event delivery attempts made, by outcome (succeeded, failed) and reason (HTTP status class or transport error kind)',
      duration: 'webhook_delivery_attempt_duration_seconds',
      durationHelp: 'Duration of event delivery attempts (the HTTP call), by outcome',
    });
    this.firstAttemptLatency = new Histogram({
      name: 'webhook_event_to_first_attempt_seconds',
      help: 'Time from an event accepted at intake to the start of its first delivery attempt',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    this.acceptedEvents = new Counter({ name: 'webhook_events_accepted_total', help: 'Events accepted at intake, by type', labelNames: ['type'] as const, registers });
    this.disabledWebhooks = new Counter({ name: 'webhooks_disabled_total', help: 'Webhooks disabled, by reason', labelNames: ['reason'] as const, registers });
    this.deferredDeliveries = new Counter({
      name: 'webhook_deliveries_deferred_total',
      help: 'Deliveries handed back to the queue before their call: their receiver and account had enough waiting in memory',
      registers,
    });
  }

  attempted(report: AttemptReport): void {
    const { outcome, durationMs, firstAttemptLatencyMs } = report;
    this.attempts.record(outcome, durationMs);
    if (firstAttemptLatencyMs !== null) this.firstAttemptLatency.observe(Math.max(0, firstAttemptLatencyMs) / 1000);
    const { accountId, webhookId, eventId, deliveryId, eventType, attemptNo, httpStatus, error, status } = report;
    const line = { accountId, webhookId, eventId, deliveryId, eventType, attemptNo, httpStatus, error, durationMs, status };
    if (outcome.result === 'failed') this.logger.log({ msg: 'delivery attempt failed', ...line });
    else this.logger.debug({ msg: 'delivery attempt succeeded', ...line });
  }

  disabled(report: DisableReport): void {
    this.disabledWebhooks.inc({ reason: report.reason });
    this.logger.log({ msg: 'webhook disabled', ...report });
  }

  deferred(report: DeferReport): void {
    this.deferredDeliveries.inc();
    this.logger.debug({ msg: 'delivery deferred: its receiver has enough waiting', ...report });
  }

  accepted(eventType: string, count: number): void {
    this.acceptedEvents.inc({ type: eventType }, count);
  }
}
