import type { CallOutcome } from '../../kernel/src';
import type { RunStatus } from './run';

/**
 * The automation worker's window for operations (metrics): one call per webhook-target call
 * made and per run that ends. Implemented by an adapter (Prometheus); must never throw or block.
 */
export abstract class AutomationObserver {
  abstract targetCalled(outcome: CallOutcome, durationMs: number): void;
  abstract runFinished(status: Exclude<RunStatus, 'running'>): void;
}

/** Observes nothing: for unit tests that do not look. */
export class NoAutomationObserver extends AutomationObserver {
  targetCalled(): void {}
  runFinished(): void {}
}
