import { generateSecret } from '../../../libs/signing/src';
import { scaled } from '../bench-support';
import type { LoadJob, LoadResult } from '../harness/load-job';
import { Run } from '../harness/run';
import { ReceiverProcess, runLoad, serverErrors, startBareIntake } from '../harness/tools';

export const BURST_EVENTS = () => scaled(20_000, 1_000);
export const SINGLE_EVENTS = () => scaled(10_000, 500);
/**
 * Untimed requests (or events, for the burst) before a closed loop against the server and before
 * its baseline alike: Node's JIT needs a few thousand calls to reach its steady state. A bare server
 * measured after 200 ran at half its speed (22,000 req/s after 200, 39,000–48,000 after 2,000–5,000),
 * and the burst ran on a server that had just started, so each side was measured at another stage.
 */
export const CLOSED_LOOP_WARM_UP = () => scaled(5_000, 100);
export const TRIGGER_CALLS = () => scaled(10_000, 500);
export const LARGE_TRIGGER_CALLS = () => scaled(2_000, 100);
export const CONNECTIONS = 64;

/** A baseline measured right before and right after its figure; the figure's ratio uses their mean. */
export interface Bracketed {
  before: number;
  after: number;
  mean: number;
}

/** "baseline 11,200 before, 12,100 after": what a figure's note says of its bracketing baseline. */
export const describeBracket = (b: Bracketed): string => `baseline ${perSecond(b.before)} before, ${perSecond(b.after)} after`;
const perSecond = (value: number) => Math.round(value).toLocaleString('en');

/**
 * Measures the baseline, runs the figure, measures the baseline again, each baseline once the
 * server is quiet (`quiet`): `figure` must return only once the server's work for it is done.
 */
export async function bracketed<T>(quiet: () => Promise<void>, measure: () => Promise<number>, figure: () => Promise<T>): Promise<{ result: T; baseline: Bracketed }> {
  await quiet();
  const before = await measure();
  const result = await figure();
  await quiet();
  const after = await measure();
  return { result, baseline: { before, after, mean: (before + after) / 2 } };
}

/**
 * The ceilings, each in processes of its own, measured beside the figure they bound (this
 * machine's speed swings by a third from one minute to the next, so a baseline from the start of
 * the run would pair a figure with another minute's machine):
 * (a) a bare undici + HMAC loop POSTing the same signed envelope to the same receiver, 64 in flight;
 * (b) a bare node:http server that parses the JSON and answers 202, loaded by the same generator at
 *     64 connections with the bodies the figures send (one event, 1 KB, 256 KB).
 */
export class BaselineMeter {
  constructor(
    private readonly run: Run,
    private readonly receiver: ReceiverProcess,
  ) {}

  /**
   * (a): deliveries/s and the mean body size of its envelopes. The receiver is left checking
   * signatures with the baseline's own secret: whoever uses it next configures it again.
   */
  async delivery(): Promise<{ perSecond: number; bodyBytes: number }> {
    const secret = generateSecret();
    await this.receiver.configure({ secret, mode: { status: 200, delayMs: 0 } });
    await this.receiver.reset();
    const result = await runLoad(this.run, {
      origin: this.receiver.url,
      method: 'POST',
      paths: ['/baseline'],
      headers: {},
      body: { kind: 'signed-envelope', secret, accountId: 1, idPrefix: 'evt_baseline_' },
      connections: CONNECTIONS,
      loop: { kind: 'closed', requests: BURST_EVENTS() },
      warmup: CLOSED_LOOP_WARM_UP(),
    });
    const checked = await this.receiver.stats();
    if (checked.signaturesFailed > 0) throw new Error(`the receiver rejected ${checked.signaturesFailed} baseline signatures: the harness is broken`);
    assertClean('(a) delivery loop', result);
    await this.receiver.reset();
    return { perSecond: result.okPerSecond, bodyBytes: checked.meanBodyBytes };
  }

  /**
   * (b) with `body`, `requests` times at 64 connections after `warmup` untimed: requests/s. The
   * bare server starts fresh each time, so it gets the same warm-up as the route it bounds.
   */
  async intake(body: LoadJob['body'], requests: number, warmup: number): Promise<number> {
    const bare = await startBareIntake(this.run);
    try {
      const result = await runLoad(this.run, { origin: bare.origin, method: 'POST', paths: ['/intake'], headers: {}, body, connections: CONNECTIONS, loop: { kind: 'closed', requests }, warmup });
      assertClean('(b) bare intake', result);
      return result.okPerSecond;
    } finally {
      await this.run.stop(bare.child, 2_000);
    }
  }
}

function assertClean(name: string, result: LoadResult): void {
  if (serverErrors(result) > 0 || result.accepted !== result.requests) {
    throw new Error(`baseline ${name} did not answer every request with 2xx: ${JSON.stringify(result.statuses)} ${result.sampleError ?? ''}`);
  }
}
