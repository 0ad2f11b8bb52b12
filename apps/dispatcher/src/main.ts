import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { loadConfigOrExit } from '../../../config/load-config-or-exit';
import { createLogger, PinoNestLogger } from '../../../libs/adapters/logging/logger';
import { MetricsServer } from '../../../libs/adapters/metrics/metrics-server';
import { assertPortFree } from '../../../libs/adapters/runtime/assert-port-free';
import { stopOnSignals } from '../../../libs/adapters/runtime/stop-on-signals';
import { warnWithoutSecretsKey } from '../../../libs/adapters/runtime/warn-without-secrets-key';
import { DispatcherAppModule } from './dispatcher-app.module';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createLogger(config.runtime.logLevel);
  warnWithoutSecretsKey(config, logger);
  // Before the app exists: it takes work at init, which a process that cannot serve its health port must not do.
  const healthPort = config.runtime.dispatcherHealthPort;
  if (healthPort) await assertPortFree(healthPort, 'DISPATCHER_HEALTH_PORT');
  const app = await NestFactory.createApplicationContext(DispatcherAppModule.forRoot(config), { logger: new PinoNestLogger(logger), abortOnError: false });
  try {
    await app.init();
  } catch (error) {
    // Whatever started before the failure hands back its work.
    await app.close().catch(() => undefined);
    throw error;
  }

  const port = app.get(MetricsServer).port;
  // Workers may all be idle timers; this keeps the process up until it is told to stop.
  const keepAlive = setInterval(() => undefined, 1 << 30);

  stopOnSignals(app, logger, 'dispatcher', () => clearInterval(keepAlive));
  logger.info(
    { storage: config.storage.kind, queue: config.queue.kind, healthPort: port },
    port ? `dispatcher started: health http://127.0.0.1:${port}/health, metrics http://127.0.0.1:${port}/metrics` : 'dispatcher started (no health port: DISPATCHER_HEALTH_PORT is unset)',
  );
}

void main().catch((error: unknown) => {
  process.stderr.write(`start-up failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
