import { Injectable, Logger } from '@nestjs/common';
import { accountShare, acquireCallPlaces, CallParking, Clock, isCurrentWork, Lanes, nextRetryAt, nextSeq, originOf, parkingLimits, placesOrShed, ReceivedWork, ShedFromParking, UnitOfWork, WorkHandler, WorkOutcome, WorkQueue } from '../../kernel/src';
import { parseExactJson, renderStepBody, TemplateError, WebhookTargetCaller, WebhookTargetsService } from '../../webhook-targets/src';
import { AutomationObserver } from './automation-observer';
import { RunRepository } from './automations.repository';
import { AutomationsSettings } from './automations.settings';
import { beginDelay, completeStep, failStep, Run } from './run';
import { AUTOMATION_STEP_TOPIC, runStepItem } from './run-step-work';
import { DelayStep, SendWebhookStep } from './workflow';

const DONE: WorkOutcome = { kind: 'done' };
/** The one key of the call places. */
const CALLS = 'calls';

/**
 * Runs one step of one run per queue item (`{runId, seq}`), then hands the run on through the
 * queue: the next step now, a retry after TARGET_RETRY_SCHEDULE, or the end of a delay, so every
 * wait is a queue item with `runAt` and survives restarts.
 *
 * Idempotent under at-least-once: an item whose `seq` is not the run's current one (a duplicate,
 * or work already done) is acknowledged without acting, and progress is written with a
 * compare-and-set on `seq` in the same transaction as the next item. A call that was made but
 * whose outcome could not be recorded (crash in between) is made again: target calls are
 * at-least-once, like event deliveries.
 *
 * Target calls wait for their places as event deliveries do (libs/kernel lanes.ts): at most
 * `originConcurrency` per origin, a freed place going to the waiting account that holds the fewest,
 * and at most three quarters of `callConcurrency` for one account. So one account's hanging
 * targets never hold another account's steps back; their items wait without counting against the
 * items this process takes (spareCapacity).
 */
@Injectable()
export class AutomationStepHandler extends WorkHandler {
  readonly topic = AUTOMATION_STEP_TOPIC;
  /** Far more than the calls in flight: items waiting for their places hold none of another account's. */
  override readonly maxInFlight: number;
  private readonly logger = new Logger('Automations');
  private readonly origins: Lanes;
  private readonly calls: Lanes;
  /** Steps waiting longer than their line (origin and account) needs go back to the queue (as deliveries do). */
  private readonly parking: CallParking;
  /** Items in handle() now, and among them those whose call has started. */
  private handling = 0;
  private calling = 0;
  /** Set at shutdown (WorkHandler.stop): steps still waiting for their places make no call. */
  private stopped = false;

  constructor(
    private readonly runs: RunRepository,
    private readonly targets: WebhookTargetsService,
    private readonly caller: WebhookTargetCaller,
    private readonly queue: WorkQueue,
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly settings: AutomationsSettings,
    private readonly observer: AutomationObserver,
  ) {
    super();
    const concurrency = settings.callConcurrency;
    this.maxInFlight = concurrency * 16;
    this.origins = new Lanes(() => settings.originConcurrency);
    this.calls = new Lanes(
      () => concurrency,
      () => accountShare(concurrency),
    );
    this.parking = new CallParking(parkingLimits(settings.originConcurrency), () => clock.nowMs());
  }

  /** More items are welcome while fewer than the call places wait for one; items no free place would start do not count. */
  override spareCapacity(): number {
    const parked = this.origins.totalWaiting + this.calls.waitingOnShare;
    return Math.max(0, this.settings.callConcurrency - (this.handling - this.calling - parked));
  }

  override stop(): void {
    this.stopped = true;
    this.parking.stop();
  }

  async handle(work: ReceivedWork): Promise<WorkOutcome> {
    this.handling++;
    try {
      return await this.handleItem(work);
    } finally {
      this.handling--;
    }
  }

  private async handleItem(work: ReceivedWork): Promise<WorkOutcome> {
    const { runId, seq } = work.payload;
    if (typeof runId !== 'string' || typeof seq !== 'number') return { kind: 'drop', reason: 'malformed automation step payload' };
    const run = await this.runs.findById(runId);
    if (!run) return { kind: 'drop', reason: `run ${runId} no longer exists` };
    if (!isCurrentWork(run, run.status === 'running', seq)) return DONE;
    const step = run.steps[run.stepIndex];
    return step.type === 'delay' ? this.delay(run, step) : this.sendWebhook(run, step);
  }

  /** Its handler threw: the run's step is due when its item comes back, so the sweeper leaves it to that item. */
  override async postpone(work: ReceivedWork, at: Date): Promise<void> {
    const { runId, seq } = work.payload;
    if (typeof runId === 'string' && typeof seq === 'number') await this.runs.postpone(runId, seq, at);
  }

  /** Its handler kept throwing (WORK_MAX_HANDLER_FAILURES): the run fails at its current step. */
  override async giveUp(work: ReceivedWork): Promise<void> {
    const { runId } = work.payload;
    const run = typeof runId === 'string' ? await this.runs.findById(runId) : null;
    if (!run || run.status !== 'running') return;
    const expectedSeq = run.seq;
    failStep(run, this.clock.now());
    await this.save(run, expectedSeq, null);
  }

  private async delay(run: Run, step: DelayStep): Promise<WorkOutcome> {
    const state = run.stepStates[run.stepIndex];
    const now = this.clock.now();
    const expectedSeq = run.seq;
    if (state.resumeAt === undefined) {
      run.seq = nextSeq(run.seq);
      await this.save(run, expectedSeq, beginDelay(run, step, now));
      return DONE;
    }
    if (now.getTime() < state.resumeAt) return { kind: 'retry', at: new Date(state.resumeAt) };
    completeStep(run, now);
    await this.save(run, expectedSeq, run.status === 'running' ? now : null);
    return DONE;
  }

  private async sendWebhook(run: Run, step: SendWebhookStep): Promise<WorkOutcome> {
    const state = run.stepStates[run.stepIndex];
    const expectedSeq = run.seq;
    const target = await this.targets.findForStep(run.accountId, step.targetId);
    const body = target ? this.render(run, step) : null;
    if (!target || body === null) {
      this.logger.warn(`run ${run.id} step ${run.stepIndex}: ${target ? 'the body could not be rendered' : `target ${step.targetId} no longer exists`}; the run fails`);
      failStep(run, this.clock.now());
      await this.save(run, expectedSeq, null);
      return DONE;
    }

    const account = String(run.accountId);
    const origin = originOf(target.url);
    const parked = this.parking.park(`${origin}\n${account}`);
    const release = await placesOrShed(parked, (signal) => acquireCallPlaces(this.origins, origin, this.calls, CALLS, account, undefined, signal));
    if (release instanceof ShedFromParking) {
      // The run says when its step is due, so the sweeper does not take it for lost meanwhile.
      const at = new Date(release.atMs);
      await this.runs.postpone(run.id, run.seq, at);
      return { kind: 'retry', at };
    }
    let called: { at: Date; result: Awaited<ReturnType<WebhookTargetCaller['call']>> } | null = null;
    try {
      // Stopping while it waited for its places: the item goes back to the queue, due now.
      if (!this.stopped) {
        this.calling++;
        const at = this.clock.now();
        called = { at, result: await this.caller.call(target, body).finally(() => this.calling--) };
      }
    } finally {
      release();
    }
    if (!called) return { kind: 'retry', at: this.clock.now() };
    const { at, result } = called;
    const succeeded = result.success;
    this.observer.targetCalled(result.outcome, result.durationMs);
    state.attempts.push({ at: at.toISOString(), durationMs: result.durationMs, httpStatus: result.status, error: result.error });
    const now = this.clock.now();
    // A target answering 429/503 with Retry-After is called again no sooner than it asked (up to a minute).
    const retryAt = succeeded ? null : nextRetryAt(state.attempts.length - 1, this.settings.targetRetryScheduleMs, now, result.retryAfterMs);
    if (succeeded) {
      completeStep(run, now);
      await this.save(run, expectedSeq, run.status === 'running' ? now : null);
    } else if (retryAt) {
      run.seq = nextSeq(run.seq);
      await this.save(run, expectedSeq, retryAt);
    } else {
      failStep(run, now);
      await this.save(run, expectedSeq, null);
    }
    return DONE;
  }

  /** The step's body for this run, or null when it cannot be rendered within the limit. */
  private render(run: Run, step: SendWebhookStep): string | null {
    try {
      return renderStepBody(step.body, {
        trigger: { body: parseExactJson(run.triggerBody), receivedAt: run.startedAt.toISOString() },
        workflow: { id: run.workflowId, name: run.workflowName },
        run: { id: run.id },
        account: { id: run.accountId },
      });
    } catch (error) {
      // A stored body too deep to walk (RangeError) fails the step like any body that cannot be rendered.
      if (error instanceof TemplateError || error instanceof SyntaxError || error instanceof RangeError) return null;
      throw error;
    }
  }

  /**
   * Writes the progress if `seq` did not move meanwhile, with the next item when there is one and
   * when it is due (`nextAt`, what RunSweeper looks at; null once the run ended).
   */
  private async save(run: Run, expectedSeq: number, nextAt: Date | null): Promise<void> {
    run.nextAt = nextAt;
    const saved = await this.uow.run(async () => {
      if (!(await this.runs.saveProgress(run, expectedSeq))) return false;
      if (nextAt !== null) {
        await this.queue.enqueue([runStepItem(run.id, run.seq, nextAt)]);
      }
      return true;
    });
    if (saved && run.status !== 'running') this.observer.runFinished(run.status);
  }
}
