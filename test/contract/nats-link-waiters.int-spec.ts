import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { DIST } from '../support/processes';

/**
 * While NATS is away, every consumer, publisher and the relay wait on the link at once. Node warns
 * (on stderr, outside the JSON log) past 10 listeners on one AbortSignal; the built link must not.
 * Run in a process of its own: Node writes the warning from its own process object, which jest's
 * sandbox does not see.
 */
describe('NatsLink waiters (built)', () => {
  it('lets 30 waiters wait for the link without a MaxListenersExceededWarning', () => {
    const script = `
      const { NatsLink } = require(${JSON.stringify(join(DIST, 'libs/adapters/queue/src/nats/nats-link.js'))});
      const quiet = { log() {}, warn() {}, error() {} };
      const link = new NatsLink({ servers: ['127.0.0.1:1'], name: 't', requestTimeoutMs: 100, reconnectTimeWaitMs: 100, setUp: async () => {}, logger: quiet });
      const waiting = Array.from({ length: 30 }, () => link.whenUp());
      setTimeout(async () => { await link.close(); process.stdout.write(String((await Promise.all(waiting)).filter((w) => w === null).length)); }, 50);
    `;
    const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect({ stdout: run.stdout, stderr: run.stderr }).toEqual({ stdout: '30', stderr: '' });
  });
});
