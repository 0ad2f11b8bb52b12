import { AppConfig, boolean, ConfigError, duration, durationList, integer, oneOf, read, secretKeys, url } from './env.schema';

export { AppConfig, ConfigError } from './env.schema';

/** Reads and validates the whole environment at once; throws ConfigError naming the variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): AppConfig {
  // Not 0 (a random port): trigger URLs and the start-up line are made from PORT before it is bound.
  const port = integer(env, 'PORT', 3000, 1, 65535);
  const storageKind = oneOf(env, 'STORAGE', ['sqlite', 'mysql'] as const, 'sqlite');
  const databaseUrl = url(env, 'DATABASE_URL', null, ['mysql:', 'mariadb:']);
  if (storageKind === 'mysql' && databaseUrl === null) {
    throw new ConfigError('DATABASE_URL', 'required when STORAGE=mysql (mysql://user:pass@host:port/db)');
  }
  // Without one, the first statement fails with "No database selected", which names no setting.
  if (databaseUrl !== null && !/^\/[^/]+$/.test(new URL(databaseUrl).pathname)) {
    throw new ConfigError('DATABASE_URL', 'must name the database after the host (mysql://user:pass@host:port/db)');
  }
  const adminToken = read(env, 'ADMIN_TOKEN') ?? null;
  const internalToken = read(env, 'INTERNAL_TOKEN') ?? null;
  const metricsToken = read(env, 'METRICS_TOKEN') ?? null;
  for (const [name, token] of [['ADMIN_TOKEN', adminToken], ['INTERNAL_TOKEN', internalToken], ['METRICS_TOKEN', metricsToken]] as const) {
    if (token !== null && token.length < 16) throw new ConfigError(name, 'must be at least 16 characters');
  }
  if (adminToken !== null && adminToken === internalToken) {
    throw new ConfigError('INTERNAL_TOKEN', 'must differ from ADMIN_TOKEN (neither token may open the other routes)');
  }
  // A scraper's configuration holds the metrics token: it must open nothing but /metrics.
  if (metricsToken !== null && (metricsToken === adminToken || metricsToken === internalToken)) {
    throw new ConfigError('METRICS_TOKEN', 'must differ from ADMIN_TOKEN and INTERNAL_TOKEN (a scraper holding it must not open the other routes)');
  }
  return {
    http: {
      port,
      publicBaseUrl: stripSlash(url(env, 'PUBLIC_BASE_URL', `http://localhost:${port}`, ['http:', 'https:'])!),
    },
    auth: { adminToken, internalToken, metricsToken },
    storage: {
      kind: storageKind,
      sqlitePath: read(env, 'SQLITE_PATH') ?? './data/service.db',
      databaseUrl,
      statementTimeoutMs: duration(env, 'DATABASE_STATEMENT_TIMEOUT', '10s'),
    },
    queue: {
      kind: oneOf(env, 'QUEUE', ['database', 'nats'] as const, 'database'),
      natsUrl: natsUrls(env),
      natsPrefix: natsPrefix(env),
      natsReplicas: integer(env, 'NATS_REPLICAS', 1, 1, 5),
    },
    delivery: {
      timeoutMs: integer(env, 'DELIVERY_TIMEOUT_MS', 10_000, 1, 600_000),
      retryScheduleMs: durationList(env, 'DELIVERY_RETRY_SCHEDULE', '10s,1m,5m,30m,2h,6h,24h'),
      disableAfter: integer(env, 'WEBHOOK_DISABLE_AFTER', 10, 1, 1_000_000),
      targetRetryScheduleMs: durationList(env, 'TARGET_RETRY_SCHEDULE', '10s,1m,5m'),
      allowPrivateTargets: boolean(env, 'ALLOW_PRIVATE_TARGETS', false),
      concurrency: integer(env, 'DISPATCHER_CONCURRENCY', 256, 1, 10_000),
      originConcurrency: integer(env, 'DISPATCHER_ORIGIN_CONCURRENCY', 64, 1, 10_000),
      maxHandlerFailures: integer(env, 'WORK_MAX_HANDLER_FAILURES', 10, 1, 1_000),
      sweepIntervalMs: duration(env, 'DELIVERY_SWEEP_INTERVAL', '30s'),
      sweepAfterMs: duration(env, 'DELIVERY_SWEEP_AFTER', '2m'),
    },
    secrets: {
      rotationGraceMs: duration(env, 'SECRET_ROTATION_GRACE', '24h'),
      keys: secretKeys(env, 'SECRETS_KEY'),
    },
    triggers: {
      rateLimitBurst: integer(env, 'TRIGGER_RATE_LIMIT_BURST', 60, 1, 1_000_000),
      rateLimitPerSecond: integer(env, 'TRIGGER_RATE_LIMIT_PER_SECOND', 10, 1, 1_000_000),
    },
    retention: { eventDays: integer(env, 'EVENT_RETENTION_DAYS', 30, 1, 36_500) },
    sendStatus: { retentionDays: integer(env, 'SEND_STATUS_RETENTION_DAYS', 365, 1, 36_500) },
    runtime: {
      dispatcherEnabled: boolean(env, 'DISPATCHER_ENABLED', true),
      logLevel: oneOf(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
      shutdownGraceMs: duration(env, 'SHUTDOWN_GRACE_MS', '15s'),
      dispatcherHealthPort: read(env, 'DISPATCHER_HEALTH_PORT') === undefined ? null : integer(env, 'DISPATCHER_HEALTH_PORT', 0, 1, 65535),
    },
  };
}

function stripSlash(value: string): string {
  return value.replace(/\/+$/, '');
}

function natsUrls(env: Record<string, string | undefined>): string {
  const value = read(env, 'NATS_URL') ?? 'nats://127.0.0.1:4222';
  for (const part of value.split(',')) url({ NATS_URL: part.trim() }, 'NATS_URL', null, ['nats:', 'tls:', 'ws:', 'wss:']);
  return value;
}

function natsPrefix(env: Record<string, string | undefined>): string {
  const value = read(env, 'NATS_PREFIX') ?? 'webhooks';
  if (!/^[A-Za-z0-9_-]{1,32}$/.test(value)) {
    throw new ConfigError('NATS_PREFIX', `got "${value}", expected 1-32 letters, digits, "_" or "-"`);
  }
  return value;
}
