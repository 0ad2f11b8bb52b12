import { createServer, IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

/** One request as the receiver got it: the raw body bytes untouched, for signature checks. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  /** rawBody as UTF-8 text. */
  body: string;
  /** Date.now() when the request had fully arrived. */
  at: number;
}

/** How to answer: status (default 200), body, headers, and an optional delay before answering. */
export interface Reply {
  status?: number;
  body?: string;
  headers?: Record<string, string>;
  delayMs?: number;
}

export type Responder = Reply | ((request: ReceivedRequest, index: number) => Reply);

export interface Receiver {
  /** `http://127.0.0.1:<port>`; append any path. */
  readonly url: string;
  /** Every request received, in arrival order. */
  readonly requests: ReceivedRequest[];
  /** Changes how the next requests are answered. */
  respond(responder: Responder): void;
  /** Requests whose path starts with `path`. */
  requestsTo(path: string): ReceivedRequest[];
  clear(): void;
  close(): Promise<void>;
}

/**
 * A local HTTP receiver for end-to-end tests: records every request (raw body and headers) and
 * answers as told (a status, a body, a delay, redirects included, never followed by anyone here).
 */
export async function startReceiver(responder: Responder = {}): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  let current = responder;
  const timers = new Set<NodeJS.Timeout>();

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks);
      const request: ReceivedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, rawBody, body: rawBody.toString('utf8'), at: Date.now() };
      requests.push(request);
      const reply = typeof current === 'function' ? current(request, requests.length - 1) : current;
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(reply.status ?? 200, { 'content-type': 'text/plain', ...reply.headers });
        res.end(reply.body ?? '');
      };
      if (!reply.delayMs) return send();
      const timer = setTimeout(() => {
        timers.delete(timer);
        send();
      }, reply.delayMs);
      timers.add(timer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    respond(next: Responder) {
      current = next;
    },
    requestsTo(path: string) {
      return requests.filter((r) => r.path.startsWith(path));
    },
    clear() {
      requests.length = 0;
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
