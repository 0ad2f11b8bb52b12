import 'reflect-metadata';
import { createServer } from 'node:http';
import { NestFactory } from '@nestjs/core';
import { loadConfigOrExit } from '../../../config/load-config-or-exit';
import { createLogger, PinoNestLogger } from '../../../libs/adapters/logging/logger';
import { Metrics } from '../../../libs/adapters/metrics/metrics';
import { bearerToken, tokensMatch } from '../../../libs/kernel/src/credentials';
import { DispatcherAppModule } from './dispatcher-app.module';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createLogger(config.runtime.logLevel);
  const app = await NestFactory.createApplicationContext(DispatcherAppModule.forRoot(config), { logger: new PinoNestLogger(logger), abortOnError: false });
  await app.init();

  // The dispatcher's only HTTP surface, when asked for: GET /metrics (Prometheus text, delivery
  // metrics included; Bearer METRICS_TOKEN when set) and a liveness answer on every other path (/health).
  const metrics = app.get(Metrics);
  const metricsToken = config.auth.metricsToken;
  const health = config.runtime.dispatcherHealthPort
    ? createServer((request, response) => {
        if (request.method === 'GET' && request.url?.split('?')[0] === '/metrics') {
          const token = bearerToken(request.headers.authorization);
          if (metricsToken !== null && (token === null || !tokensMatch(token, metricsToken))) {
            response.writeHead(401, { 'content-type': 'application/json' }).end('{"code":"unauthorized","message":"missing or invalid bearer token"}');
            return;
          }
          metrics.registry.metrics().then(
            (text) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
            () => response.writeHead(500, { 'content-type': 'application/json' }).end('{"code":"internal_error","message":"metrics unavailable"}'),
          );
          return;
        }
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
      }).listen(config.runtime.dispatcherHealthPort)
    : null;
  // Workers may all be idle timers; this keeps the process up until it is told to stop.
  const keepAlive = setInterval(() => undefined, 1 << 30);

  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'dispatcher stopping');
    clearInterval(keepAlive);
    health?.close();
    await app.close();
    process.exit(0);
  };
  process.once('SIGTERM', (signal) => void stop(signal));
  process.once('SIGINT', (signal) => void stop(signal));
  const port = config.runtime.dispatcherHealthPort;
  logger.info(
    { storage: config.storage.kind, queue: config.queue.kind, healthPort: port },
    port ? `dispatcher started: health http://127.0.0.1:${port}/health, metrics http://127.0.0.1:${port}/metrics` : 'dispatcher started (no health port: DISPATCHER_HEALTH_PORT is unset)',
  );
}

void main().catch((error: unknown) => {
  process.stderr.write(`start-up failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
