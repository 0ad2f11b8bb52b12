import { OutboundClosedError } from '../../../kernel/src';
import { readFileSync } from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { RESPONSE_BODY_LIMIT_BYTES } from '../../../kernel/src';
import { UndiciOutboundHttp, type UndiciOutboundHttpOptions } from './undici-outbound-http';

/** A local server that records what reached it: TCP connections and complete requests. */
interface TestServer {
  url: string;
  port: number;
  connections: number;
  requests: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: Buffer }>;
  close(): Promise<void>;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => void;

const servers: TestServer[] = [];
const clients: UndiciOutboundHttp[] = [];

async function startServer(handler: Handler, tls = false): Promise<TestServer> {
  const fixtures = join(__dirname, 'fixtures');
  const server = tls
    ? https.createServer({
        key: readFileSync(join(fixtures, 'self-signed-key.pem')),
        cert: readFileSync(join(fixtures, 'self-signed-cert.pem')),
      })
    : http.createServer();
  const sockets = new Set<Socket>();
  const state: TestServer = {
    url: '',
    port: 0,
    connections: 0,
    requests: [],
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  server.on(tls ? 'secureConnection' : 'connection', () => state.connections++);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('tlsClientError', () => undefined);
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      state.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  state.port = (server.address() as AddressInfo).port;
  state.url = `${tls ? 'https' : 'http'}://127.0.0.1:${state.port}`;
  servers.push(state);
  return state;
}

function client(overrides: Partial<UndiciOutboundHttpOptions> = {}): UndiciOutboundHttp {
  const c = new UndiciOutboundHttp({ timeoutMs: 2000, allowPrivate: true, userAgent: 'WebhookServer/0.1.0', ...overrides });
  clients.push(c);
  return c;
}

async function freePort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', () => resolve()));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('UndiciOutboundHttp', () => {
  describe('answers', () => {
    it('posts headers and body unchanged and returns a 200 with its body', async () => {
      const server = await startServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('received ✓');
      });
      const body = JSON.stringify({ id: 'evt_1', type: 'email.delivered', data: { name: 'Zoë 🚀' } });
      const headers = {
        'Content-Type': 'application/json',
        'X-Service-Signature': 't=1732238400,v1=abc123',
        'X-Service-Event-Id': 'evt_1',
        'webhook-id': 'evt_1',
      };

      const result = await client().post({ url: `${server.url}/hooks/in?tenant=42&x=%20y`, headers, body });

      expect(result).toEqual({ status: 200, durationMs: expect.any(Number), body: 'received ✓', error: null });
      expect(result.durationMs).toBeGreaterThanOrEqual(0);
      expect(server.requests).toHaveLength(1);
      const seen = server.requests[0];
      expect(seen.method).toBe('POST');
      expect(seen.url).toBe('/hooks/in?tenant=42&x=%20y');
      expect(seen.body.toString('utf8')).toBe(body);
      expect(seen.headers['content-type']).toBe('application/json');
      expect(seen.headers['x-service-signature']).toBe('t=1732238400,v1=abc123');
      expect(seen.headers['x-service-event-id']).toBe('evt_1');
      expect(seen.headers['webhook-id']).toBe('evt_1');
      expect(seen.headers['content-length']).toBe(String(Buffer.byteLength(body)));
      expect(seen.headers['user-agent']).toBe('WebhookServer/0.1.0');
      expect(seen.headers.host).toBe(`127.0.0.1:${server.port}`);
    });

    it('says which headers it sends: exactly those the receiver sees, with those undici adds', async () => {
      const server = await startServer((_req, res) => res.end());
      const c = client();
      const request = { url: `${server.url}/in?x=1`, headers: { 'content-type': 'application/json', 'x-service-event-id': 'evt_é' }, body: '{"name":"Zoë"}' };
      await c.post(request);
      expect(c.sentHeaders(request)).toEqual(server.requests[0].headers);
      expect(c.sentHeaders(request)).toMatchObject({ host: `127.0.0.1:${server.port}`, connection: 'keep-alive', 'content-length': '15' });
      expect(c.sentHeaders({ ...request, url: 'https://example.com:443/x' }).host).toBe('example.com');
      expect(c.sentHeaders({ ...request, url: 'not a url' })).not.toHaveProperty('host');
    });

    it('sends a Buffer body byte for byte and keeps a caller User-Agent', async () => {
      const server = await startServer((_req, res) => res.end());
      const body = Buffer.from([0, 1, 2, 0xff, 0xfe, 0x80]);
      const result = await client().post({ url: server.url, headers: { 'User-Agent': 'Custom/2' }, body });
      expect(result.status).toBe(200);
      expect(result.body).toBe('');
      expect(server.requests[0].body.equals(body)).toBe(true);
      expect(server.requests[0].headers['user-agent']).toBe('Custom/2');
      expect(server.requests[0].url).toBe('/');
    });

    it('returns a 500 as a status with its body, not as an error', async () => {
      const server = await startServer((_req, res) => {
        res.writeHead(500);
        res.end('{"error":"boom"}');
      });
      const result = await client().post({ url: server.url, headers: {}, body: '{}' });
      expect(result).toMatchObject({ status: 500, body: '{"error":"boom"}', error: null });
    });

    it('does not follow a 302: the status comes back and the Location is never called', async () => {
      const elsewhere = await startServer((_req, res) => res.end('should not be reached'));
      const server = await startServer((_req, res) => {
        res.writeHead(302, { location: `${elsewhere.url}/landing` });
        res.end('moved');
      });
      const result = await client().post({ url: server.url, headers: {}, body: '{}' });
      expect(result).toMatchObject({ status: 302, body: 'moved', error: null });
      await sleep(50);
      expect(elsewhere.connections).toBe(0);
      expect(elsewhere.requests).toHaveLength(0);
    });

    it('reuses a keep-alive connection for the same origin', async () => {
      const server = await startServer((_req, res) => res.end('ok'));
      const c = client();
      for (let i = 0; i < 6; i++) {
        expect((await c.post({ url: server.url, headers: {}, body: String(i) })).status).toBe(200);
      }
      expect(server.requests).toHaveLength(6);
      // undici may open a second socket when the next call is queued in the same tick the first
      // answer ends (before that socket is marked free); after that the pool is reused
      expect(server.connections).toBeLessThanOrEqual(2);
    });
  });

  describe('response body limit', () => {
    it('keeps the first 4096 bytes of a 5 MB body, reads the rest to its end and keeps the connection', async () => {
      const server = await startServer((_req, res) => {
        res.writeHead(200, { 'content-length': String(5 * 1024 * 1024) });
        const chunk = Buffer.alloc(64 * 1024, 'a');
        let sent = 0;
        const pump = () => {
          while (sent < 80) {
            sent++;
            if (!res.write(chunk)) {
              res.once('drain', pump);
              return;
            }
          }
          res.end();
        };
        pump();
      });

      const http = client({ timeoutMs: 5000 });
      const first = await http.post({ url: server.url, headers: {}, body: '{}' });
      await sleep(50); // the socket is marked free a moment after the answer ends
      const second = await http.post({ url: server.url, headers: {}, body: '{}' });

      for (const result of [first, second]) {
        expect(result).toMatchObject({ status: 200, error: null });
        expect(result.body).toBe('a'.repeat(RESPONSE_BODY_LIMIT_BYTES));
      }
      expect(server.connections).toBe(1);
    });

    it('a 2xx whose body stops past the first 4096 bytes is a timeout: the whole answer must arrive (CONTRACT §3)', async () => {
      const server = await startServer((_req, res) => {
        res.writeHead(200, { 'content-length': '10000' });
        res.write('a'.repeat(5000)); // and the other 5,000 bytes never come
      });
      const result = await client({ timeoutMs: 400 }).post({ url: server.url, headers: {}, body: '{}' });
      expect(result).toMatchObject({ status: null, error: 'timeout', body: '' });
      expect(result.errorDetail).toMatch(/after HTTP 200 headers/);
    });

    it('cuts at a UTF-8 character boundary', async () => {
      const server = await startServer((_req, res) => res.end('€'.repeat(3000))); // 3 bytes each
      const result = await client().post({ url: server.url, headers: {}, body: '' });
      expect(result.status).toBe(200);
      expect(result.body).toBe('€'.repeat(Math.floor(RESPONSE_BODY_LIMIT_BYTES / 3)));
      expect(result.body).not.toContain('\uFFFD');
      expect(Buffer.byteLength(result.body)).toBeLessThanOrEqual(RESPONSE_BODY_LIMIT_BYTES);
    });

    it('keeps a body of exactly 4096 bytes whole', async () => {
      const exact = 'b'.repeat(RESPONSE_BODY_LIMIT_BYTES);
      const server = await startServer((_req, res) => res.end(exact));
      const result = await client().post({ url: server.url, headers: {}, body: '' });
      expect(result.body).toBe(exact);
    });
  });

  describe('timeouts', () => {
    it('times out on a server that never answers, within the limit', async () => {
      const server = await startServer(() => undefined); // reads the request, never answers
      const started = Date.now();
      const result = await client({ timeoutMs: 300 }).post({ url: server.url, headers: {}, body: '{}' });
      const took = Date.now() - started;
      expect(result).toMatchObject({ status: null, error: 'timeout', body: '' });
      expect(result.errorDetail).toEqual(expect.any(String));
      expect(took).toBeGreaterThanOrEqual(250);
      expect(took).toBeLessThan(1000);
      expect(result.durationMs).toBeLessThan(1000);
    });

    it('times out when headers arrive but the body stalls', async () => {
      const server = await startServer((_req, res) => {
        res.writeHead(200, { 'content-length': '100' });
        res.write('partial');
      });
      const started = Date.now();
      const result = await client({ timeoutMs: 300 }).post({ url: server.url, headers: {}, body: '{}' });
      expect(Date.now() - started).toBeLessThan(1000);
      expect(result).toMatchObject({ status: null, error: 'timeout', body: '' });
      expect(result.errorDetail).toContain('after HTTP 200 headers');
    });

    it('honours a per-request timeoutMs', async () => {
      const server = await startServer(() => undefined);
      const started = Date.now();
      const result = await client({ timeoutMs: 10_000 }).post({
        url: server.url,
        headers: {},
        body: '{}',
        timeoutMs: 200,
      });
      expect(result.error).toBe('timeout');
      expect(Date.now() - started).toBeLessThan(1000);
    });

    it('counts a slow trickle of body bytes against the total limit', async () => {
      const server = await startServer((_req, res) => {
        res.writeHead(200, { 'content-length': '1000' });
        const timer = setInterval(() => res.write('x'), 50); // each byte resets undici's bodyTimeout
        res.on('close', () => clearInterval(timer));
      });
      const started = Date.now();
      const result = await client({ timeoutMs: 400 }).post({ url: server.url, headers: {}, body: '{}' });
      expect(result.error).toBe('timeout');
      expect(Date.now() - started).toBeLessThan(1200);
    });
  });

  describe('transport errors', () => {
    it('classifies a refused port as connection_refused', async () => {
      const port = await freePort();
      const result = await client().post({ url: `http://127.0.0.1:${port}/`, headers: {}, body: '{}' });
      expect(result).toMatchObject({ status: null, error: 'connection_refused', body: '' });
    });

    it('classifies an unknown host as dns', async () => {
      const result = await client().post({ url: 'http://nonexistent.invalid/hook', headers: {}, body: '{}' });
      expect(result).toMatchObject({ status: null, error: 'dns' });
    });

    it('classifies a self-signed certificate as tls, sending nothing', async () => {
      const server = await startServer((_req, res) => res.end('secret'), true);
      const result = await client().post({ url: `${server.url}/hook`, headers: {}, body: '{}' });
      expect(result).toMatchObject({ status: null, error: 'tls' });
      expect(result.errorDetail).toMatch(/self[- ]signed|DEPTH_ZERO/i);
      expect(server.requests).toHaveLength(0);
    });

    it('classifies a socket destroyed before any answer as connection_reset', async () => {
      const server = await startServer((req) => req.socket.destroy());
      const result = await client().post({ url: server.url, headers: {}, body: '{}' });
      expect(result).toMatchObject({ status: null, error: 'connection_reset' });
    });

    it('classifies a socket destroyed mid-response as connection_reset', async () => {
      const server = await startServer((_req, res) => {
        res.writeHead(200, { 'content-length': '1000' });
        res.write('some of it', () => setTimeout(() => res.socket?.destroy(), 20));
      });
      const result = await client().post({ url: server.url, headers: {}, body: '{}' });
      expect(result).toMatchObject({ status: null, error: 'connection_reset' });
      expect(result.errorDetail).toContain('after HTTP 200 headers');
    });

    it.each([
      ['ftp://x'],
      ['not a url'],
      [''],
      ['file:///etc/passwd'],
      ['http://user:pass@example.com/'],
    ])('classifies %j as invalid_url without any network call', async (url) => {
      const result = await client({ allowPrivate: false }).post({ url, headers: {}, body: '{}' });
      expect(result).toMatchObject({ status: null, error: 'invalid_url', body: '' });
    });

  });

  describe('address guard (allowPrivate: false)', () => {
    let server: TestServer;
    beforeEach(async () => {
      server = await startServer((_req, res) => res.end('reached'));
    });

    it.each([
      ['literal loopback', (port: number) => `http://127.0.0.1:${port}/`],
      ['literal IPv6 loopback', (port: number) => `http://[::1]:${port}/`],
      ['IPv4-mapped loopback', (port: number) => `http://[::ffff:127.0.0.1]:${port}/`],
      ['decimal loopback', (port: number) => `http://2130706433:${port}/`],
      ['literal loopback over https', (port: number) => `https://127.0.0.1:${port}/`],
    ])('refuses a %s without connecting', async (_name, url) => {
      const result = await client({ allowPrivate: false }).post({ url: url(server.port), headers: {}, body: '{}' });
      expect(result).toMatchObject({ status: null, error: 'blocked_address' });
      await sleep(50);
      expect(server.connections).toBe(0);
      expect(server.requests).toHaveLength(0);
    });

    it('refuses a hostname that resolves to loopback (the lookup guard), without connecting', async () => {
      const result = await client({ allowPrivate: false }).post({
        url: `http://localhost:${server.port}/hook`,
        headers: {},
        body: '{}',
      });
      expect(result).toMatchObject({ status: null, error: 'blocked_address' });
      expect(result.errorDetail).toContain('localhost');
      await sleep(50);
      expect(server.connections).toBe(0);
      expect(server.requests).toHaveLength(0);
    });

    it('reaches the same server by name when allowPrivate is true', async () => {
      const result = await client({ allowPrivate: true }).post({
        url: `http://localhost:${server.port}/hook`,
        headers: {},
        body: '{}',
      });
      // localhost may resolve to ::1 first; the server listens on 127.0.0.1 only, and
      // happy eyeballs falls back to it
      expect(result).toMatchObject({ status: 200, body: 'reached', error: null });
    });
  });

  it('throws OutboundClosedError, and makes no call, once closed (shutdown): that is no failed attempt', async () => {
    const server = await startServer((_req, res) => res.end('ok'));
    const http = client();
    await http.close();
    await expect(http.post({ url: server.url, headers: {}, body: '{}' })).rejects.toBeInstanceOf(OutboundClosedError);
    expect(server.requests).toHaveLength(0);
  });

  it('rejects bad options at construction', () => {
    expect(() => new UndiciOutboundHttp({ timeoutMs: 0, allowPrivate: false, userAgent: 'x' })).toThrow(RangeError);
  });

  it('never queues a call behind others to the same origin: 150 calls at once to a receiver taking 300 ms all succeed within a 1 s limit', async () => {
    const server = await startServer((_req, res) => setTimeout(() => res.end('ok'), 300));
    const http = client({ timeoutMs: 1_000 });
    const results = await Promise.all(Array.from({ length: 150 }, () => http.post({ url: server.url, headers: {}, body: '{}' })));
    expect(results.filter((result) => result.status !== 200).map((result) => result.error)).toEqual([]);
    expect(Math.max(...results.map((result) => result.durationMs))).toBeLessThan(1_000);
  });
});
