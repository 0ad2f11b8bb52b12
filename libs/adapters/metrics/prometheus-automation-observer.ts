import { Counter } from 'prom-client';
import { AutomationObserver } from '../../automations/src/automation-observer';
import type { CallOutcome } from '../../kernel/src';
import { Metrics } from './metrics';
import { OutboundCallSeries } from './outbound-call-series';

/** The automation worker's observer as Prometheus series: webhook-target calls by outcome and duration, runs by final status. */
export class PrometheusAutomationObserver extends AutomationObserver {
  private readonly calls: OutboundCallSeries;
  private readonly runs: Counter<'status'>;

  constructor(metrics: Metrics) {
    super();
    const registers = [metrics.registry];
    this.calls = new OutboundCallSeries(metrics.registry, {
      count: 'webhook_target_calls_total',
      countHelp: 'Calls of webhook targets by automation steps, by outcome (succeeded, failed) and reason (HTTP status class or transport error kind)',
      duration: 'webhook_target_call_duration_seconds',
      durationHelp: 'Duration of webhook-target calls (the HTTP call), by outcome',
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
    this.calls.record(outcome, durationMs);
  }

  runFinished(status: 'succeeded' | 'failed'): void {
    this.runs.inc({ status });
  }
}
