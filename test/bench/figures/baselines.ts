import { generateSecret } from '../../../libs/signing/src';
import { scaled } from '../bench-support';
import type { LoadJob, LoadResult } from '../harness/load-job';
import { Run } from '../harness/run';
import { ReceiverProcess, runLoad, serverErrors, startBareIntake } from '../harness/tools';
import { jsonBody, TRIGGER_LIMIT_BYTES } from './bodies';
import type { Baselines } from './context';

export const BURST_EVENTS = () => scaled(20_000, 1_000);
export const SINGLE_EVENTS = () => scaled(10_000, 500);
/** Untimed single events sent before figure 2's measured ones. */
export const SINGLE_EVENTS_WARM_UP = () => scaled(1_000, 100);
export const TRIGGER_CALLS = () => scaled(10_000, 500);
export const LARGE_TRIGGER_CALLS = () => scaled(2_000, 100);
export const CONNECTIONS = 64;

/**
 * The ceilings, each in processes of its own and measured in the same run:
 * (a) a bare undici + HMAC loop POSTing the same signed envelope to the same receiver, 64 in flight;
 * (b) a bare node:http server that parses the JSON and answers 202, loaded by the same generator at
 *     64 connections with the bodies the figures send (one event, 1 KB, 256 KB).
 */
export async function measureBaselines(run: Run, receiver: ReceiverProcess): Promise<Baselines> {
  const secret = generateSecret();
  await receiver.configure({ secret, mode: { status: 200, delayMs: 0 } });
  await receiver.reset();
  const delivery = await runLoad(run, {
    origin: receiver.url,
    method: 'POST',
    paths: ['/baseline'],
    headers: {},
    body: { kind: 'signed-envelope', secret, accountId: 1, idPrefix: 'evt_baseline_' },
    connections: CONNECTIONS,
    loop: { kind: 'closed', requests: BURST_EVENTS() },
    warmup: 500,
  });
  const checked = await receiver.stats();
  if (checked.signaturesFailed > 0) throw new Error(`the receiver rejected ${checked.signaturesFailed} baseline signatures: the harness is broken`);
  assertClean('(a) delivery loop', delivery);

  const bare = await startBareIntake(run);
  try {
    const load = async (body: LoadJob['body'], requests: number) => {
      const result = await runLoad(run, { origin: bare.origin, method: 'POST', paths: ['/intake'], headers: {}, body, connections: CONNECTIONS, loop: { kind: 'closed', requests }, warmup: 200 });
      assertClean('(b) bare intake', result);
      return result.okPerSecond;
    };
    return {
      delivery: delivery.okPerSecond,
      deliveryBodyBytes: checked.meanBodyBytes,
      intake: {
        event: await load({ kind: 'event', accountId: 1, idPrefix: 'evt_bare_' }, SINGLE_EVENTS()),
        oneKb: await load({ kind: 'fixed', text: jsonBody(1024) }, TRIGGER_CALLS()),
        maxTrigger: await load({ kind: 'fixed', text: jsonBody(TRIGGER_LIMIT_BYTES) }, LARGE_TRIGGER_CALLS()),
      },
    };
  } finally {
    await run.stop(bare.child, 2_000);
  }
}

function assertClean(name: string, result: LoadResult): void {
  if (serverErrors(result) > 0 || result.accepted !== result.requests) {
    throw new Error(`baseline ${name} did not answer every request with 2xx: ${JSON.stringify(result.statuses)} ${result.sampleError ?? ''}`);
  }
}
