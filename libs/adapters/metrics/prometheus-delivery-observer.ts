import { Counter, Histogram } from 'prom-client';
import { DeliveryAttemptOutcome, DeliveryObserver } from '../../event-webhooks/src/deliveries/delivery-observer';
import { Metrics } from './metrics';

/** The delivery worker's observer as Prometheus series: attempts by outcome, and their duration. */
export class PrometheusDeliveryObserver extends DeliveryObserver {
  private readonly attempts: Counter<'outcome' | 'reason'>;
  private readonly duration: Histogram<'outcome'>;

  constructor(metrics: Metrics) {
    super();
    this.attempts = new Counter({
      name: 'webhook_delivery_attempts_total',
      help: 'Event delivery attempts made, by outcome (succeeded, failed) and reason (HTTP status class or transport error kind)',
      labelNames: ['outcome', 'reason'] as const,
      registers: [metrics.registry],
    });
    this.duration = new Histogram({
      name: 'webhook_delivery_attempt_duration_seconds',
      help: 'Duration of event delivery attempts (the HTTP call), by outcome',
      labelNames: ['outcome'] as const,
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [metrics.registry],
    });
  }

  attempted(outcome: DeliveryAttemptOutcome, durationMs: number): void {
    this.attempts.inc({ outcome: outcome.result, reason: outcome.reason });
    this.duration.observe({ outcome: outcome.result }, Math.max(0, durationMs) / 1000);
  }
}
