import { Agent, get, IncomingMessage, request } from 'node:http';
import { AddressInfo, createServer } from 'node:net';
import { Gauge } from 'prom-client';
import { loadConfig } from '../../../config/load-config';
import { Metrics } from './metrics';
import { MetricsServer } from './metrics-server';

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

function fetchOn(agent: Agent, url: string): Promise<{ response: IncomingMessage; body: string }> {
  return new Promise((resolve, reject) => {
    get(url, { agent }, (response) => {
      let body = '';
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve({ response, body }));
    }).on('error', reject);
  });
}

function call(port: number, method: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; requestId: string; body: string }> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, method, path, headers }, (response) => {
      let body = '';
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, requestId: String(response.headers['x-request-id']), body }));
    })
      .on('error', reject)
      .end();
  });
}

describe('MetricsServer', () => {
  it('answers GET /health and GET /metrics, 404 to anything else, each with an x-request-id', async () => {
    const port = await freePort();
    const server = new MetricsServer(new Metrics(), loadConfig({ DISPATCHER_HEALTH_PORT: String(port) }));
    await server.onApplicationBootstrap();
    try {
      const health = await call(port, 'GET', '/health', { 'x-request-id': 'probe-1' });
      expect(health).toEqual({ status: 200, requestId: 'probe-1', body: '{"status":"ok"}' });
      expect((await call(port, 'GET', '/metrics')).status).toBe(200);
      for (const [method, path] of [['GET', '/other'], ['POST', '/health'], ['GET', '/healthz'], ['DELETE', '/metrics']]) {
        const answer = await call(port, method, path, { 'x-request-id': 'bad id!' });
        expect({ method, path, status: answer.status, code: JSON.parse(answer.body).code }).toEqual({ method, path, status: 404, code: 'not_found' });
        expect(answer.requestId).toMatch(/^[0-9a-f-]{36}$/);
      }
    } finally {
      await server.onApplicationShutdown();
    }
  });

  it('closes the connection of a scrape in flight at shutdown instead of keeping it alive', async () => {
    const port = await freePort();
    const metrics = new Metrics();
    let collecting!: () => void;
    const collectStarted = new Promise<void>((resolve) => (collecting = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    new Gauge({
      name: 'slow_gauge',
      help: 'collected only when the test lets it',
      registers: [metrics.registry],
      async collect() {
        collecting();
        await released;
        this.set(1);
      },
    });
    const server = new MetricsServer(metrics, loadConfig({ DISPATCHER_HEALTH_PORT: String(port) }));
    await server.onApplicationBootstrap();
    const agent = new Agent({ keepAlive: true });
    try {
      const health = await fetchOn(agent, `http://127.0.0.1:${port}/health`);
      expect(health.response.headers.connection).toBe('keep-alive');

      const scrape = fetchOn(agent, `http://127.0.0.1:${port}/metrics`);
      await collectStarted;
      const startedAt = Date.now();
      const stopped = server.onApplicationShutdown();
      release();
      const { response, body } = await scrape;
      await stopped;

      expect(response.statusCode).toBe(200);
      expect(body).toContain('slow_gauge 1');
      expect(response.headers.connection).toBe('close');
      // Node's keep-alive timeout is 5 s: a connection kept open would hold the close that long.
      expect(Date.now() - startedAt).toBeLessThan(2_000);
    } finally {
      agent.destroy();
    }
  });
});
