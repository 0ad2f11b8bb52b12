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

export const MYSQL = { host: '127.0.0.1', port: 3306, url: 'mysql://root@127.0.0.1:3306' };
export const NATS = { host: '127.0.0.1', port: 4222, url: 'nats://127.0.0.1:4222' };

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
