import { createConnection } from 'node:net';

/** True when something accepts TCP connections on host:port within the timeout. */
export function portAnswers(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

import { spawnSync } from 'node:child_process';

/** The servers the MySQL and NATS suites use; each run gets its own database and prefix on them. */
export const TEST_MYSQL = { host: '127.0.0.1', port: 3306, user: 'root', url: 'mysql://root@127.0.0.1:3306' };
export const TEST_NATS = { host: '127.0.0.1', port: 4222, url: 'nats://127.0.0.1:4222' };

/**
 * Whether a suite that needs a real server can run. Under CI a missing server is a failure
 * (the suite must not pass by skipping); on a laptop without it the suite is skipped, loudly.
 */
export async function serviceAvailable(name: string, host: string, port: number): Promise<boolean> {
  if (await portAnswers(host, port)) return true;
  if (process.env.CI) throw new Error(`${name} is not answering on ${host}:${port}, and CI is set: the ${name} suites cannot be skipped`);
  console.warn(`${name} is not answering on ${host}:${port}: skipping the suites that need it`);
  return false;
}

/**
 * True when something answers on host:port. Otherwise: with CI set, registers a failing test
 * that says what is missing; without it, warns and returns false so the caller skips its suite.
 * Synchronous on purpose, so it can decide between `describe` and `describe.skip`.
 */
export function requireService(name: string, host: string, port: number): boolean {
  const probe = `const s=require('net').connect(${port},${JSON.stringify(host)});s.setTimeout(1500);s.on('connect',()=>process.exit(0));s.on('error',()=>process.exit(1));s.on('timeout',()=>process.exit(1));`;
  const result = spawnSync(process.execPath, ['-e', probe], { timeout: 5_000 });
  if (result.status === 0) return true;
  const message = `${name} is not reachable at ${host}:${port}`;
  if (process.env.CI) {
    test(`${name} at ${host}:${port} is available`, () => {
      throw new Error(`${message}; CI is set, so the suites that need it fail instead of being skipped`);
    });
  } else {
    console.warn(`${message}: skipping the suites that need it (set CI=1 to make this a failure)`);
  }
  return false;
}
