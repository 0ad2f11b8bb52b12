import { jetstream, JetStreamClient, jetstreamManager, JetStreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { setMaxListeners } from 'node:events';
import { describeError, QueueLogger, sleep } from '../work-items';

export type NatsConnection = Awaited<ReturnType<typeof connect>>;
export type NatsConnect = typeof connect;

export interface NatsLinkOptions {
  servers: string[];
  name: string;
  /** Per JetStream API request and per connect attempt. */
  requestTimeoutMs: number;
  reconnectTimeWaitMs: number;
  /** Server-side setup run after every (re)connect before the link counts as up. */
  setUp(jsm: JetStreamManager): Promise<void>;
  logger: QueueLogger;
  /** The client's connect(), replaceable to watch or cut the connection. */
  connect?: NatsConnect;
}

export interface JetStreamHandles {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
}

/**
 * The connection to NATS, kept for the life of the process. It never fails the caller: while the
 * server is away it keeps trying (first connect included, which the client library would not do
 * without blocking forever), and `up` tells the outbox relay and the consumers whether to act.
 */
export class NatsLink {
  private handles: JetStreamHandles | null = null;
  private isUp = false;
  private readonly stopSignal = new AbortController();
  private readonly upListeners = new Set<() => void>();
  private readonly reconnectListeners = new Set<() => void>();
  private running: Promise<void> | null = null;
  private warned = false;

  constructor(private readonly options: NatsLinkOptions) {
    // While NATS is away every consumer, publisher and the relay wait on it (whenUp), each listening
    // to this signal: more than Node's 10 is expected there, not a leak (each removes its listener).
    setMaxListeners(0, this.stopSignal.signal);
  }

  get up(): boolean {
    return this.isUp && this.handles !== null && !this.handles.nc.isClosed();
  }

  get current(): JetStreamHandles | null {
    return this.up ? this.handles : null;
  }

  /** Starts connecting; resolves once up or after `waitMs`, whichever is first. */
  async start(waitMs: number): Promise<void> {
    this.running = this.run();
    await Promise.race([this.whenUp(), sleep(waitMs, this.stopSignal.signal)]);
  }

  /** Resolves with the handles once the link is up, or null once it is closed. */
  async whenUp(signal?: AbortSignal): Promise<JetStreamHandles | null> {
    while (!this.stopSignal.signal.aborted && !signal?.aborted) {
      if (this.current) return this.current;
      await new Promise<void>((resolve) => {
        const done = () => {
          this.upListeners.delete(done);
          signal?.removeEventListener('abort', done);
          this.stopSignal.signal.removeEventListener('abort', done);
          resolve();
        };
        this.upListeners.add(done);
        signal?.addEventListener('abort', done, { once: true });
        this.stopSignal.signal.addEventListener('abort', done, { once: true });
      });
    }
    return null;
  }

  /** Called after the connection came back from an outage (open pull requests are gone by then). */
  onReconnect(listener: () => void): () => void {
    this.reconnectListeners.add(listener);
    return () => this.reconnectListeners.delete(listener);
  }

  async close(): Promise<void> {
    this.stopSignal.abort();
    const nc = this.handles?.nc;
    this.isUp = false;
    if (nc && !nc.isClosed()) await nc.close().catch(() => undefined);
    await this.running;
  }

  private async run(): Promise<void> {
    const { servers, name, requestTimeoutMs, reconnectTimeWaitMs, logger } = this.options;
    const stop = this.stopSignal.signal;
    while (!stop.aborted) {
      let nc: NatsConnection;
      try {
        // noAsyncTraces: otherwise every request (each JetStream publish) builds two Error objects with
        // stack traces up front, about 30 µs a publish, for a stack the timeout error rarely needs.
        nc = await (this.options.connect ?? connect)({ servers, name, timeout: requestTimeoutMs, maxReconnectAttempts: -1, reconnectTimeWait: reconnectTimeWaitMs, noAsyncTraces: true });
      } catch (error) {
        if (!this.warned) logger.warn(`NATS at ${servers.map(withoutCredentials).join(',')} is not reachable yet, work waits in the outbox: ${describeError(error)}`);
        this.warned = true;
        await sleep(reconnectTimeWaitMs, stop);
        continue;
      }
      if (stop.aborted) {
        await nc.close().catch(() => undefined);
        return;
      }
      this.handles = { nc, js: jetstream(nc, { timeout: requestTimeoutMs }), jsm: await jetstreamManager(nc, { timeout: requestTimeoutMs, checkAPI: false }) };
      void this.watch(nc);
      await this.setUp(nc);
      await nc.closed();
      this.isUp = false;
    }
  }

  private async watch(nc: NatsConnection): Promise<void> {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect') {
        this.isUp = false;
        this.options.logger.warn(`NATS connection lost; work waits in the outbox until it is back`);
      } else if (status.type === 'reconnect') {
        this.options.logger.log(`NATS connection is back`);
        void this.setUp(nc).then(() => {
          for (const listener of this.reconnectListeners) listener();
        });
      }
    }
  }

  /** Runs the server-side setup until it succeeds (e.g. JetStream may still be starting). */
  private async setUp(nc: NatsConnection): Promise<void> {
    const stop = this.stopSignal.signal;
    while (!stop.aborted && !nc.isClosed() && this.handles?.nc === nc) {
      try {
        await this.options.setUp(this.handles!.jsm);
        this.isUp = true;
        if (this.warned) this.options.logger.log(`NATS is up`);
        this.warned = false;
        for (const listener of [...this.upListeners]) listener();
        return;
      } catch (error) {
        if (!this.warned) this.options.logger.warn(`NATS JetStream setup failed, retrying: ${describeError(error)}`);
        this.warned = true;
        await sleep(Math.max(this.options.reconnectTimeWaitMs, 1_000), stop);
      }
    }
  }
}

/** `nats://user:password@host:4222` -> `nats://[redacted]@host:4222`: a server's address is logged, never its credentials. */
export function withoutCredentials(server: string): string {
  return server.replace(/^([a-z]+:\/\/)?[^@/]*@/i, (_match, scheme: string | undefined) => `${scheme ?? ''}[redacted]@`);
}
