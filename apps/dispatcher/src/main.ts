import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { loadConfigOrExit } from '../../../config/load-config-or-exit';
import { createLogger, PinoNestLogger } from '../../../libs/adapters/logging/logger';
import { DispatcherAppModule } from './dispatcher-app.module';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createLogger(config.runtime.logLevel);
  const app = await NestFactory.createApplicationContext(DispatcherAppModule.forRoot(config), { logger: new PinoNestLogger(logger) });
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  await app.init();
  logger.info({ storage: config.storage.kind, queue: config.queue.kind }, 'dispatcher started');
}

void main();
