import { parseDuration, parseDurationList } from '../libs/kernel/src/durations';

/**
 * Every environment variable the server reads, with its default and one line of doc
 * (CONTRACT §8). `loadConfig` turns them into the typed AppConfig tree.
 */
export type StorageKind = 'sqlite' | 'mysql';
export type QueueKind = 'database' | 'nats';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface AppConfig {
  http: {
    /** PORT: TCP port of the API (default 3000). */
    port: number;
    /** PUBLIC_BASE_URL: the URL the outside world reaches the API at; trigger URLs start with it. */
    publicBaseUrl: string;
  };
  auth: {
    /** ADMIN_TOKEN: bearer token of /admin/*; generated per run and printed once when unset. */
    adminToken: string | null;
    /** INTERNAL_TOKEN: bearer token of /internal/* (producers); generated per run when unset. */
    internalToken: string | null;
    /** METRICS_TOKEN: when set, GET /metrics (API and dispatcher) requires Bearer METRICS_TOKEN; unset, it is open. */
    metricsToken: string | null;
  };
  storage: {
    /** STORAGE: `sqlite` (embedded file, default) or `mysql` (MySQL 8 / MariaDB 10.6+). */
    kind: StorageKind;
    /** SQLITE_PATH: SQLite database file, created if missing (default ./data/service.db). */
    sqlitePath: string;
    /** DATABASE_URL: mysql://user:pass@host:port/db, required when STORAGE=mysql. */
    databaseUrl: string | null;
    /** DATABASE_STATEMENT_TIMEOUT: a MySQL statement that may be given up without committing anything is, after this long (default 10s). */
    statementTimeoutMs: number;
  };
  queue: {
    /** QUEUE: `database` (durable queue in the SQL database, default) or `nats` (JetStream). */
    kind: QueueKind;
    /** NATS_URL: NATS server(s), comma-separated (default nats://127.0.0.1:4222). */
    natsUrl: string;
    /** NATS_PREFIX: prefix of streams, consumers and subjects, so installations can share a cluster. */
    natsPrefix: string;
    /** NATS_REPLICAS: copies of the work stream kept by a JetStream cluster, 1-5 (default 1; 3 survives a node loss). */
    natsReplicas: number;
  };
  delivery: {
    /** DELIVERY_TIMEOUT_MS: total time a receiver has for headers and body (default 10000). */
    timeoutMs: number;
    /** DELIVERY_RETRY_SCHEDULE: delays before each retry (default 10s,1m,5m,30m,2h,6h,24h). */
    retryScheduleMs: number[];
    /** WEBHOOK_DISABLE_AFTER: consecutive failed attempts that disable a webhook (default 10). */
    disableAfter: number;
    /** TARGET_RETRY_SCHEDULE: delays before each retry of a webhook-target call (default 10s,1m,5m). */
    targetRetryScheduleMs: number[];
    /** ALLOW_PRIVATE_TARGETS: allow loopback/private/link-local targets (default false). */
    allowPrivateTargets: boolean;
    /** DISPATCHER_CONCURRENCY: first-attempt calls in flight per dispatcher process (default 256; retries: half as many, apart; automation steps: as many). */
    concurrency: number;
    /** DISPATCHER_ORIGIN_CONCURRENCY: concurrent calls to one receiver origin per process (default 64). */
    originConcurrency: number;
    /** WORK_MAX_HANDLER_FAILURES: times a work item's handler may throw before its delivery or run is failed (default 10). */
    maxHandlerFailures: number;
    /** DELIVERY_SWEEP_INTERVAL: how often one dispatcher looks for waiting deliveries and running automation runs whose queue item was lost (default 30s). */
    sweepIntervalMs: number;
    /** DELIVERY_SWEEP_AFTER: a due, unclaimed delivery, or a running run whose next step is due, this long past due is re-queued by the sweepers (default 2m). */
    sweepAfterMs: number;
  };
  secrets: {
    /** SECRET_ROTATION_GRACE: how long a rotated-out secret keeps signing (default 24h). */
    rotationGraceMs: number;
    /** SECRETS_KEY: one or more 32-byte keys (hex or base64), comma-separated, newest first (new secrets take the first, stored ones open with any); unset, the server warns. */
    keys: Buffer[];
  };
  triggers: {
    /** TRIGGER_RATE_LIMIT_BURST: calls one trigger URL may make at once before it is limited (default 60). */
    rateLimitBurst: number;
    /** TRIGGER_RATE_LIMIT_PER_SECOND: sustained calls per second per trigger URL and API process (default 10). */
    rateLimitPerSecond: number;
  };
  retention: {
    /** EVENT_RETENTION_DAYS: days events (with their deliveries and attempts) and automation runs are kept (default 30). */
    eventDays: number;
  };
  sendStatus: {
    /** SEND_STATUS_RETENTION_DAYS: days a send record is kept after creation (default 365). */
    retentionDays: number;
  };
  runtime: {
    /** DISPATCHER_ENABLED: run the dispatcher inside the API process (default true; start:api sets false). */
    dispatcherEnabled: boolean;
    /** LOG_LEVEL: pino level (default info). */
    logLevel: LogLevel;
    /** DISPATCHER_HEALTH_PORT: port of the standalone dispatcher's GET /health (unset: no HTTP at all). */
    dispatcherHealthPort: number | null;
    /** SHUTDOWN_GRACE_MS: time in-flight work gets to finish on SIGTERM before release (default 15000). */
    shutdownGraceMs: number;
  };
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

export function read(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

export function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const value = read(env, name);
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new ConfigError(name, `got "${value}", accepted values: ${allowed.join(', ')}`);
  }
  return value as T;
}

export function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const value = read(env, name);
  if (value === undefined) return fallback;
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new ConfigError(name, `got "${value}", expected an integer from ${min} to ${max}`);
  }
  return n;
}

export function boolean(env: Env, name: string, fallback: boolean): boolean {
  const value = read(env, name);
  if (value === undefined) return fallback;
  const word = value.toLowerCase();
  if (word === 'true' || word === '1') return true;
  if (word === 'false' || word === '0') return false;
  throw new ConfigError(name, `got "${value}", accepted values: true, false (or 1, 0)`);
}

/**
 * The longest duration a setting takes: 2^31 - 1 ms (about 596.5 h, 24.8 days), the longest delay a
 * Node timer keeps; a longer one would fire after 1 ms.
 */
export const MAX_DURATION_MS = 2 ** 31 - 1;

export function duration(env: Env, name: string, fallback: string): number {
  const text = read(env, name) ?? fallback;
  const ms = parseDuration(text);
  if (ms === null || ms <= 0 || ms > MAX_DURATION_MS) {
    throw new ConfigError(name, `got "${text}", expected a duration from 1ms to 2147483647ms (about 596h) such as 500ms, 10s, 5m or 24h (a bare number is milliseconds)`);
  }
  return ms;
}

export function durationList(env: Env, name: string, fallback: string): number[] {
  const text = read(env, name) ?? fallback;
  const list = parseDurationList(text);
  if (list === null || list.length > 50 || list.some((ms) => ms > MAX_DURATION_MS)) {
    throw new ConfigError(name, `got "${text}", expected comma-separated durations of at most 2147483647ms (about 596h) such as 10s,1m,5m (units ms, s, m, h; a bare number is milliseconds)`);
  }
  return list;
}

export function url(env: Env, name: string, fallback: string | null, protocols: string[]): string | null {
  const value = read(env, name) ?? fallback;
  if (value === null) return null;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new ConfigError(name, `got an unparseable URL, expected ${protocols.map((p) => `${p}//...`).join(' or ')}`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `got protocol "${parsed.protocol}", accepted: ${protocols.join(', ')}`);
  }
  return value;
}

/** A comma-separated list of 32-byte keys (each 64 hex characters or base64); empty when unset. */
/** 32 bytes in base64 (standard or URL-safe alphabet), with or without its one `=` of padding. */
const BASE64_32_BYTES = /^(?:[A-Za-z0-9+/]{43}|[A-Za-z0-9_-]{43})=?$/;

export function secretKeys(env: Env, name: string): Buffer[] {
  const value = read(env, name);
  if (value === undefined) return [];
  return value.split(',').map((part, index) => {
    const text = part.trim();
    // Node's base64 decoder skips characters outside the alphabet, so a mistyped key would still
    // decode (to another key): only a whole, well-formed 32-byte encoding is taken.
    const candidate = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : BASE64_32_BYTES.test(text) ? Buffer.from(text, 'base64') : Buffer.alloc(0);
    if (candidate.length !== 32) {
      throw new ConfigError(name, `key ${index + 1}: expected 32 bytes as 64 hex characters or base64`);
    }
    return candidate;
  });
}
