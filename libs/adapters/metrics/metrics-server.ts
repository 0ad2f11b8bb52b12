import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { APP_CONFIG } from '../../../config/config.token';
import type { AppConfig } from '../../../config/load-config';
import { bearerToken, tokensMatch } from '../../kernel/src/credentials';
import { requestIdFrom } from '../../kernel/src/request-id';
import { listenNaming } from '../runtime/assert-port-free';
import { Metrics } from './metrics';

const JSON_TYPE = 'application/json';

/**
 * The HTTP surface of a process that serves no routes (the dispatcher), on DISPATCHER_HEALTH_PORT
 * when set: GET /metrics (Prometheus text; Bearer METRICS_TOKEN when it is set) and GET /health
 * (liveness); any other path or method is 404, so a probe aimed at the wrong path fails. Every
 * answer carries `x-request-id`, as the API's do. The API serves the same from its own routes.
 */
@Injectable()
export class MetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private server: Server | null = null;

  constructor(
    private readonly metrics: Metrics,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The port it listens on, null when none is configured. */
  get port(): number | null {
    return this.config.runtime.dispatcherHealthPort ?? null;
  }

  /** Listens, or fails the start naming DISPATCHER_HEALTH_PORT (a port taken since main checked it). */
  async onApplicationBootstrap(): Promise<void> {
    const port = this.port;
    if (!port) return;
    const server = createServer((request, response) => void this.answer(request, response));
    await listenNaming(server, port, 'DISPATCHER_HEALTH_PORT');
    this.server = server;
  }

  /** Stops listening; the answers still being made then close their connection (see `send`). */
  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    response.setHeader('x-request-id', requestIdFrom(request.headers['x-request-id']));
    const path = request.method === 'GET' || request.method === 'HEAD' ? request.url?.split('?')[0] : undefined;
    if (path === '/health') return this.send(response, 200, JSON_TYPE, '{"status":"ok"}');
    if (path !== '/metrics') return this.send(response, 404, JSON_TYPE, '{"code":"not_found","message":"this port serves GET /health and GET /metrics only"}');
    const required = this.config.auth.metricsToken;
    const token = bearerToken(request.headers.authorization);
    if (required !== null && (token === null || !tokensMatch(token, required))) {
      return this.send(response, 401, JSON_TYPE, '{"code":"unauthorized","message":"missing or invalid bearer token"}');
    }
    try {
      this.send(response, 200, this.metrics.registry.contentType, await this.metrics.registry.metrics());
    } catch {
      this.send(response, 500, JSON_TYPE, '{"code":"internal_error","message":"metrics unavailable"}');
    }
  }

  /**
   * Once shutting down, an answer closes its connection: a keep-alive connection left open would
   * hold the exit for Node's keep-alive timeout (a scrape in flight at SIGTERM).
   */
  private send(response: ServerResponse, status: number, contentType: string, body: string): void {
    response.writeHead(status, { 'content-type': contentType, ...(this.server === null ? { connection: 'close' } : {}) }).end(body);
  }
}
