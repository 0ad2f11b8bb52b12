import { ConfigError, loadConfig } from './load-config';

describe(loadConfig.name, () => {
  it('gives the documented defaults on an empty environment', () => {
    const sut = loadConfig({});
    expect(sut.http.port).toBe(3000);
    expect(sut.http.publicBaseUrl).toBe('http://localhost:3000');
    expect(sut.storage).toEqual({ kind: 'sqlite', sqlitePath: './data/service.db', databaseUrl: null, statementTimeoutMs: 10_000 });
    expect(sut.queue).toEqual({ kind: 'database', natsUrl: 'nats://127.0.0.1:4222', natsPrefix: 'webhooks', natsReplicas: 1 });
    expect(sut.delivery.timeoutMs).toBe(10_000);
    expect(sut.delivery.retryScheduleMs).toEqual([10_000, 60_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 86_400_000]);
    expect(sut.delivery.targetRetryScheduleMs).toEqual([10_000, 60_000, 300_000]);
    expect(sut.delivery.disableAfter).toBe(10);
    expect(sut.delivery.allowPrivateTargets).toBe(false);
    expect(sut.secrets).toEqual({ rotationGraceMs: 86_400_000, keys: [] });
    expect(sut.sendStatus.retentionDays).toBe(365);
    expect(sut.retention.eventDays).toBe(30);
    expect(sut.runtime.dispatcherEnabled).toBe(true);
  });

  it.each([
    [{ STORAGE: 'oracle' }, 'STORAGE', 'sqlite, mysql'],
    [{ PORT: 'abc' }, 'PORT', 'integer'],
    [{ PORT: '70000' }, 'PORT', 'integer'],
    [{ STORAGE: 'mysql' }, 'DATABASE_URL', 'required when STORAGE=mysql'],
    [{ DATABASE_URL: 'postgres://x' }, 'DATABASE_URL', 'mysql:'],
    [{ DATABASE_URL: 'mysql://root@127.0.0.1:3306' }, 'DATABASE_URL', 'must name the database'],
    [{ DATABASE_URL: 'mysql://root@127.0.0.1:3306/' }, 'DATABASE_URL', 'must name the database'],
    [{ DATABASE_URL: 'mysql://root@127.0.0.1:3306/a/b' }, 'DATABASE_URL', 'must name the database'],
    [{ QUEUE: 'kafka' }, 'QUEUE', 'database, nats'],
    [{ DELIVERY_RETRY_SCHEDULE: '10s,soon' }, 'DELIVERY_RETRY_SCHEDULE', 'units ms, s, m, h'],
    [{ SECRET_ROTATION_GRACE: '1d' }, 'SECRET_ROTATION_GRACE', 'duration'],
    [{ DELIVERY_SWEEP_INTERVAL: '600h' }, 'DELIVERY_SWEEP_INTERVAL', 'from 1ms to 2147483647ms'],
    [{ SHUTDOWN_GRACE_MS: '99999999999999' }, 'SHUTDOWN_GRACE_MS', '596h'],
    [{ DELIVERY_RETRY_SCHEDULE: '10s,99999999h' }, 'DELIVERY_RETRY_SCHEDULE', 'at most 2147483647ms'],
    [{ DATABASE_STATEMENT_TIMEOUT: '0s' }, 'DATABASE_STATEMENT_TIMEOUT', 'duration'],
    [{ ALLOW_PRIVATE_TARGETS: 'yes' }, 'ALLOW_PRIVATE_TARGETS', 'true, false'],
    [{ SECRETS_KEY: 'short' }, 'SECRETS_KEY', '32 bytes'],
    [{ NATS_URL: 'http://x' }, 'NATS_URL', 'nats:'],
    [{ NATS_PREFIX: 'a.b' }, 'NATS_PREFIX', 'letters'],
    [{ NATS_REPLICAS: '0' }, 'NATS_REPLICAS', 'integer from 1 to 5'],
    [{ NATS_REPLICAS: '6' }, 'NATS_REPLICAS', 'integer from 1 to 5'],
    [{ ADMIN_TOKEN: 'same-token-123456', INTERNAL_TOKEN: 'same-token-123456' }, 'INTERNAL_TOKEN', 'differ'],
    [{ ADMIN_TOKEN: 'same-token-123456', METRICS_TOKEN: 'same-token-123456' }, 'METRICS_TOKEN', 'differ'],
    [{ INTERNAL_TOKEN: 'same-token-123456', METRICS_TOKEN: 'same-token-123456' }, 'METRICS_TOKEN', 'differ'],
    [{ PUBLIC_BASE_URL: 'ftp://x' }, 'PUBLIC_BASE_URL', 'http:'],
  ])('refuses %j naming %s', (env, variable, hint) => {
    let error: unknown;
    try {
      loadConfig(env);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe(variable);
    expect((error as ConfigError).message).toContain(hint);
    expect((error as ConfigError).message.split('\n')).toHaveLength(1);
  });

  it('accepts every duration unit and mysql with a URL', () => {
    const sut = loadConfig({
      STORAGE: 'mysql',
      DATABASE_URL: 'mysql://u:p@db:3306/hooks',
      DELIVERY_RETRY_SCHEDULE: '250ms,2s,3m,1h',
      SECRETS_KEY: 'ab'.repeat(32),
      PUBLIC_BASE_URL: 'https://hooks.example.com/',
    });
    expect(sut.delivery.retryScheduleMs).toEqual([250, 2000, 180_000, 3_600_000]);
    expect(sut.storage.databaseUrl).toBe('mysql://u:p@db:3306/hooks');
    expect(sut.secrets.keys.map((key) => key.length)).toEqual([32]);
    expect(sut.http.publicBaseUrl).toBe('https://hooks.example.com');
  });

  it('reads booleans in any letter case, and the longest duration a timer keeps', () => {
    const sut = loadConfig({ ALLOW_PRIVATE_TARGETS: 'TRUE', DISPATCHER_ENABLED: 'False', SHUTDOWN_GRACE_MS: '596h', DELIVERY_SWEEP_INTERVAL: '15000' });
    expect(sut.delivery.allowPrivateTargets).toBe(true);
    expect(sut.runtime.dispatcherEnabled).toBe(false);
    expect(sut.runtime.shutdownGraceMs).toBe(596 * 3_600_000);
    expect(sut.delivery.sweepIntervalMs).toBe(15_000);
  });

  it('reads SECRETS_KEY as a key ring, newest first, hex or base64, and names a bad key', () => {
    const hex = 'ab'.repeat(32);
    const base64 = Buffer.alloc(32, 7).toString('base64');
    const sut = loadConfig({ SECRETS_KEY: `${hex}, ${base64}` });
    expect(sut.secrets.keys).toEqual([Buffer.from(hex, 'hex'), Buffer.alloc(32, 7)]);
    expect(() => loadConfig({ SECRETS_KEY: `${hex},short` })).toThrow(/SECRETS_KEY.*key 2: expected 32 bytes/);
    // Characters outside the alphabet are not skipped (Node's decoder would), nor is a key cut short.
    for (const mistyped of [`${base64.slice(0, 10)}!${base64.slice(11)}`, `${base64.slice(0, 20)} ${base64.slice(20)}`, base64.slice(0, 42)]) {
      expect(() => loadConfig({ SECRETS_KEY: mistyped })).toThrow(/SECRETS_KEY.*key 1: expected 32 bytes/);
    }
    const urlSafe = Buffer.alloc(32, 251).toString('base64url');
    expect(loadConfig({ SECRETS_KEY: urlSafe }).secrets.keys).toEqual([Buffer.alloc(32, 251)]);
  });
});
