import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createConnection } from 'node:net';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { TEST_NATS } from './databases';

type NatsConnection = Awaited<ReturnType<typeof connect>>;

/** A prefix no other run uses, so test streams and consumers never meet. */
export function uniqueNatsPrefix(): string {
  return `t${Date.now()}${Math.floor(Math.random() * 1e4)}`;
}

/** Removes the stream (and with it the consumers) a test run created under `prefix`. */
export async function deleteTestStream(prefix: string): Promise<void> {
  const nc = await connect({ servers: TEST_NATS.url, timeout: 2_000 });
  try {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.delete(`${prefix}_work`).catch(() => undefined);
  } finally {
    await nc.close();
  }
}

/**
 * A connect() that can be cut: `kill()` closes the connection it made and refuses any later
 * attempt, which is what a NATS client sees of a dead process.
 */
export function killableConnect(): { connect: typeof connect; kill(): Promise<void> } {
  let dead = false;
  const opened: NatsConnection[] = [];
  return {
    connect: async (options) => {
      if (dead) throw new Error('this process is dead');
      const nc = await connect(options);
      opened.push(nc);
      return nc;
    },
    kill: async () => {
      dead = true;
      await Promise.all(opened.map((nc) => nc.close().catch(() => undefined)));
    },
  };
}

export interface NatsServerProcess {
  url: string;
  /** Stops the server (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
}

/** Whether a `nats-server` binary is on the PATH (suites that start their own skip without it). */
export function natsServerBinaryAvailable(): boolean {
  return spawnSync('nats-server', ['--version']).status === 0;
}

/**
 * Starts a private nats-server with JetStream on `port`, storing under `storeDir` (reuse the
 * directory to restart the "same" server with its streams). Used to take NATS down and back
 * without touching the shared server other suites use.
 */
export async function startNatsServer(port: number, storeDir: string): Promise<NatsServerProcess> {
  const child: ChildProcess = spawn('nats-server', ['-js', '-sd', storeDir, '-a', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 10_000;
  while (!(await answers('127.0.0.1', port))) {
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`nats-server did not start on port ${port}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `nats://127.0.0.1:${port}`,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

function answers(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
