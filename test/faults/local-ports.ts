import { ChildProcess } from 'node:child_process';
import { AddressInfo, createServer, Server } from 'node:net';

/**
 * `count` distinct TCP ports free on 127.0.0.1 right now (the kernel picks them; a server that
 * starts a moment later may in theory lose one to another program, which then fails loudly).
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', resolve);
      });
    }
    return servers.map((server) => (server.address() as AddressInfo).port);
  } finally {
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  }
}

const running = new Set<ChildProcess>();
let hooked = false;

/**
 * Registers a server or app process the suite started, so it is killed with SIGKILL when the test
 * process exits for whatever reason (a timeout, a crash, Ctrl-C): no private mariadbd or
 * nats-server outlives the suite. The normal clean-up (each stack's stop()) runs before this.
 */
export function killOnExit(child: ChildProcess): void {
  running.add(child);
  child.once('exit', () => running.delete(child));
  if (hooked) return;
  hooked = true;
  process.once('exit', () => {
    for (const each of running) {
      try {
        each.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  });
}

/** SIGKILL, then waits (at most `waitMs`) for the exit. Never throws. */
export async function killNow(child: ChildProcess, waitMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]).finally(() => clearTimeout(timer));
}

/** Resolves once `probe` answers true; throws after `timeoutMs` with `describe()` in the message. */
export async function waitUntil(what: string, probe: () => Promise<boolean>, timeoutMs: number, describe: () => string = () => ''): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await probe().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}\n${describe()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
