import { LoggerService } from '@nestjs/common';
import pino, { Logger } from 'pino';
import type { LogLevel } from '../../../config/env.schema';

/** Header and body fields whose values never reach a log line. */
export const REDACTED_PATHS = [
  'req.headers["api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.secret',
  '*.apiKey',
  '*.signingKey',
  '*.triggerUrl',
  '*.token',
];

/** `/hooks/<token>` is a credential: access logs show `/hooks/[redacted]`. */
export function redactUrl(url: string): string {
  return url.replace(/^(\/hooks\/)[^/?#]+/, '$1[redacted]');
}

export function createLogger(level: LogLevel, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}

/**
 * Nest's start-up chatter: a line per module initialised and per route mapped (about 90 in all).
 * Logged at debug: the start-up banner says what an operator needs.
 */
const START_UP_CONTEXTS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory', 'NestApplication']);

/** Routes Nest's own log calls into pino, so every line is structured JSON. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string) {
    if (context !== undefined && START_UP_CONTEXTS.has(context)) this.logger.debug({ context }, String(message));
    else this.logger.info({ context }, String(message));
  }
  error(message: unknown, trace?: string, context?: string) {
    this.logger.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string) {
    this.logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string) {
    this.logger.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string) {
    this.logger.trace({ context }, String(message));
  }
}
