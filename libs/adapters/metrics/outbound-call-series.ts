import { Counter, Histogram, Registry } from 'prom-client';
import type { CallOutcome } from '../../kernel/src';

const CALL_DURATION_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * The two series of one kind of outbound HTTP call (event deliveries, webhook-target calls): a
 * counter by outcome and reason, and the call's duration by outcome.
 */
export class OutboundCallSeries {
  private readonly calls: Counter<'outcome' | 'reason'>;
  private readonly duration: Histogram<'outcome'>;

  constructor(registry: Registry, names: { count: string; countHelp: string; duration: string; durationHelp: string }) {
    const registers = [registry];
    this.calls = new Counter({ name: names.count, help: names.countHelp, labelNames: ['outcome', 'reason'] as const, registers });
    this.duration = new Histogram({ name: names.duration, help: names.durationHelp, labelNames: ['outcome'] as const, buckets: CALL_DURATION_BUCKETS, registers });
  }

  record(outcome: CallOutcome, durationMs: number): void {
    this.calls.inc({ outcome: outcome.result, reason: outcome.reason });
    this.duration.observe({ outcome: outcome.result }, Math.max(0, durationMs) / 1000);
  }
}
