import { Counter, Histogram } from 'prom-client';
import { AutomationObserver } from '../../automations/src/automation-observer';
import type { CallOutcome } from '../../kernel/src';
import { Metrics } from './metrics';

/** The automation worker's observer as Prometheus series: webhook-target calls by outcome and duration, runs by final status. */
export class PrometheusAutomationObserver extends AutomationObserver {
  private readonly calls: Counter<'outcome' | 'reason'>;
  private readonly duration: Histogram<'outcome'>;
  private readonly runs: Counter<'status'>;

  constructor(metrics: Metrics) {
    super();
    const registers = [metrics.registry];
    this.calls = new Counter({
      name: 'webhook_target_calls_total',
      help: 'Calls of webhook targets by automation steps, by outcome (succeeded, failed) and reason (HTTP status class or transport error kind)',
      labelNames: ['outcome', 'reason'] as const,
      registers,
    });
    this.duration = new Histogram({
      name: 'webhook_target_call_duration_seconds',
      help: 'Duration of webhook-target calls (the HTTP call), by outcome',
      labelNames: ['outcome'] as const,
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.runs = new Counter({
      name: 'automation_runs_finished_total',
      help: 'Automation runs that ended, by status (succeeded, failed)',
      labelNames: ['status'] as const,
      registers,
    });
    // Both statuses from the start, so rate() and alerts see 0 rather than no series.
    for (const status of ['succeeded', 'failed']) this.runs.inc({ status }, 0);
  }

  targetCalled(outcome: CallOutcome, durationMs: number): void {
    this.calls.inc({ outcome: outcome.result, reason: outcome.reason });
    this.duration.observe({ outcome: outcome.result }, Math.max(0, durationMs) / 1000);
  }

  runFinished(status: 'succeeded' | 'failed'): void {
    this.runs.inc({ status });
  }
}
