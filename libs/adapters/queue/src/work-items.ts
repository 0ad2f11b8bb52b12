import { LoggerService } from '@nestjs/common';
import { WorkItem, WorkOutcome } from '../../../kernel/src';

/** Rules and small helpers both queue adapters share. */

export type QueueLogger = Pick<LoggerService, 'log' | 'warn' | 'error'>;

/** Topics name tables' rows, NATS subjects and durable consumers alike, hence the narrow alphabet. */
const TOPIC = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_KEY_LENGTH = 191;

export function assertTopic(topic: string): void {
  if (!TOPIC.test(topic)) throw new Error(`work topic "${topic}" must be 1 to 64 characters of A-Z, a-z, 0-9, _ and -`);
}

export function assertWorkItems(items: WorkItem[]): void {
  for (const item of items) {
    assertTopic(item.topic);
    if (item.key !== undefined && (item.key.length === 0 || item.key.length > MAX_KEY_LENGTH)) {
      throw new Error(`work key must be 1 to ${MAX_KEY_LENGTH} characters (topic ${item.topic})`);
    }
    if (item.runAt !== undefined && Number.isNaN(item.runAt.getTime())) throw new Error(`work runAt is not a valid date (topic ${item.topic})`);
    if (item.payload === null || typeof item.payload !== 'object') throw new Error(`work payload must be an object (topic ${item.topic})`);
  }
}

export interface FailureBackoff {
  /** First delay after a handler throws (default 2 s), doubling per delivery. */
  baseMs: number;
  /** Cap (default 5 min). */
  maxMs: number;
}

export const DEFAULT_FAILURE_BACKOFF: FailureBackoff = { baseMs: 2_000, maxMs: 300_000 };

/** When an item whose handler threw is offered again: base × 2^(deliveries − 1), capped. */
export function failureRetryAt(nowMs: number, deliveryCount: number, backoff: FailureBackoff): Date {
  const exponent = Math.min(Math.max(deliveryCount - 1, 0), 30);
  return new Date(nowMs + Math.min(backoff.baseMs * 2 ** exponent, backoff.maxMs));
}

export function isWorkOutcome(value: unknown): value is WorkOutcome {
  if (!value || typeof value !== 'object') return false;
  const outcome = value as { kind?: unknown; at?: unknown };
  if (outcome.kind === 'done' || outcome.kind === 'drop') return true;
  return outcome.kind === 'retry' && outcome.at instanceof Date && !Number.isNaN(outcome.at.getTime());
}

/**
 * Runs a handler on one item. A handler that throws, or returns anything but a work outcome, has
 * failed: the outcome is then `afterFailure`'s (a retry, or a drop once the item is given up).
 */
export async function runHandler(handle: () => Promise<unknown>, afterFailure: (error: unknown) => Promise<WorkOutcome>): Promise<{ outcome: WorkOutcome; failed: boolean }> {
  try {
    const result = await handle();
    if (!isWorkOutcome(result)) throw new Error(`handler returned ${JSON.stringify(result)}, not a work outcome`);
    return { outcome: result, failed: false };
  } catch (error) {
    return { outcome: await afterFailure(error), failed: true };
  }
}

/** What afterHandlerFailure needs to decide for one item whose handler failed. */
export interface HandlerFailureRules {
  /** After this many failures (this one included) the item is given up, when `giveUp` is set. */
  maxHandlerFailures?: number;
  giveUp?: (reason: string) => Promise<void>;
  /** When to offer the item again if it is not given up. */
  retryAt: () => Date;
  /** Told when the item will be offered again (ConsumeOptions.postpone). */
  postpone?: (at: Date) => Promise<void>;
  logger: QueueLogger;
  /** Log fields naming the queue (`queue` or `topic`). */
  where: Record<string, string>;
}

/**
 * The outcome of an item whose handler failed: retried later, or, once the handler has failed
 * `maxHandlerFailures` times, given up (`giveUp` told, then dropped). A give-up that fails is
 * retried like the item.
 */
export async function afterHandlerFailure(item: { id: string; failures: number; payload: unknown }, error: unknown, rules: HandlerFailureRules): Promise<WorkOutcome> {
  const failures = item.failures + 1;
  const reason = describeError(error);
  const { logger, where } = rules;
  if (rules.maxHandlerFailures !== undefined && rules.giveUp && failures >= rules.maxHandlerFailures) {
    try {
      await rules.giveUp(reason);
      logger.error({ msg: 'work item dead: its handler kept failing', ...where, workId: item.id, failures, payload: item.payload, reason });
      return { kind: 'drop', reason: `handler failed ${failures} times` };
    } catch (giveUpError) {
      logger.warn({ msg: 'work item could not be given up, retrying', ...where, workId: item.id, reason: describeError(giveUpError) });
    }
  }
  const at = rules.retryAt();
  warnAtMostEvery(logger, { msg: 'work item handler failed, retrying', ...where, workId: item.id, failures, retryAt: at.toISOString(), reason });
  try {
    await rules.postpone?.(at);
  } catch (postponeError) {
    warnAtMostEvery(logger, { msg: 'work item could not be postponed', ...where, workId: item.id, reason: describeError(postponeError) });
  }
  return { kind: 'retry', at };
}

/** How often one kind of warning about items (its msg, queue and topic) is written at most. */
export const REPEATED_WARNING_INTERVAL_MS = 10_000;
const lastWarned = new Map<string, { at: number; suppressed: number }>();

/**
 * Writes a warning about one item unless one of the same kind was written in the last
 * REPEATED_WARNING_INTERVAL_MS; the next one written says how many were left out (`suppressed`).
 * During an outage every waiting item fails the same way on every round: one line per kind and
 * interval says as much as a line per item, without the log growing with the backlog.
 */
export function warnAtMostEvery(logger: QueueLogger, fields: { msg: string } & Record<string, unknown>, nowMs = Date.now()): void {
  const key = `${fields.msg}|${String(fields.queue ?? '')}|${String(fields.topic ?? '')}`;
  const last = lastWarned.get(key);
  if (last && nowMs - last.at < REPEATED_WARNING_INTERVAL_MS) {
    last.suppressed++;
    return;
  }
  lastWarned.set(key, { at: nowMs, suppressed: 0 });
  logger.warn(last?.suppressed ? { ...fields, suppressed: last.suppressed } : fields);
}

export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
