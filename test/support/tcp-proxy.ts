import { AddressInfo, createServer, Server, Socket } from 'node:net';

/**
 * A TCP proxy 127.0.0.1:<random port> -> target, for fault tests: `close()` destroys every open
 * connection and stops listening (new connects are refused, like a server that went away),
 * `reopen()` listens on the same port again. `stall()` keeps every connection open and takes new
 * ones but relays nothing until `resume()`, like a server that froze or a network that drops
 * packets. It lets a test cut one process off MariaDB or NATS without touching the machine's own
 * servers.
 */
export interface TcpProxy {
  readonly port: number;
  /** Whether connections are currently let through. */
  readonly isOpen: boolean;
  /** Connections currently relayed. */
  readonly connections: number;
  close(): Promise<void>;
  reopen(): Promise<void>;
  stall(): void;
  resume(): void;
  /** Stops listening and destroys every connection. */
  shutdown(): Promise<void>;
}

export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  let open = true;
  let stalled = false;
  const pairs = new Set<{ client: Socket; upstream: Socket; connected: boolean }>();
  const relay = (pair: { client: Socket; upstream: Socket }) => {
    pair.client.pipe(pair.upstream);
    pair.upstream.pipe(pair.client);
  };

  const server: Server = createServer((client) => {
    if (!open) {
      client.resetAndDestroy();
      return;
    }
    client.setNoDelay(true);
    const upstream = new Socket();
    const pair = { client, upstream, connected: false };
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    upstream.connect(targetPort, targetHost, () => {
      upstream.setNoDelay(true);
      pair.connected = true;
      if (!stalled) relay(pair);
    });
  });
  const listen = (onPort: number) =>
    new Promise<void>((resolve, reject) => {
      const failed = (error: Error) => reject(error);
      server.once('error', failed);
      server.listen(onPort, '127.0.0.1', () => {
        server.off('error', failed);
        resolve();
      });
    });
  const unlisten = () => new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
  await listen(0);
  const port = (server.address() as AddressInfo).port;

  const destroyAll = () => {
    for (const { client, upstream } of pairs) {
      client.resetAndDestroy();
      upstream.destroy();
    }
    pairs.clear();
  };

  return {
    port,
    get isOpen() {
      return open;
    },
    get connections() {
      return pairs.size;
    },
    async close() {
      open = false;
      const closing = unlisten();
      destroyAll();
      await closing;
    },
    async reopen() {
      if (open) return;
      // The port was ours a moment ago; retry briefly in case the kernel still holds it.
      for (let attempt = 1; ; attempt++) {
        try {
          await listen(port);
          break;
        } catch (error) {
          if (attempt >= 50) throw error;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
      open = true;
    },
    stall() {
      if (stalled) return;
      stalled = true;
      for (const { client, upstream } of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    resume() {
      if (!stalled) return;
      stalled = false;
      for (const pair of pairs) if (pair.connected) relay(pair);
    },
    async shutdown() {
      open = false;
      const closing = unlisten();
      destroyAll();
      await closing;
    },
  };
}
