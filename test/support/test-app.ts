import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { AppConfig, loadConfig } from '../../config/load-config';
import { createApiApp } from '../../apps/api/src/create-api-app';
import { OperatorTokens } from '../../apps/api/src/http/operator-tokens';
import { createLogger } from '../../libs/adapters/logging/logger';
import { createMysqlDatabase } from './databases';
import { deleteTestStream } from './nats';
import { serviceAvailable, TEST_MYSQL, TEST_NATS } from './services';

export type Profile = 'sqlite' | 'mysql-nats';

/** Profiles the e2e suites run on: both by default, or those named in TEST_PROFILES. */
export const PROFILES: Profile[] = ((process.env.TEST_PROFILES ?? 'sqlite,mysql-nats').split(',').map((p) => p.trim()) as Profile[]).filter(
  (p) => p === 'sqlite' || p === 'mysql-nats',
);

export interface TestApp {
  app: NestFastifyApplication;
  config: AppConfig;
  tokens: OperatorTokens;
  /** Every log line the app wrote, for assertions (e.g. that no secret was logged). */
  logs: string[];
  http(): ReturnType<typeof request>;
  createAccount(name?: string): Promise<{ id: number; name: string; apiKey: string; apiKeyId: string }>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
}

/** Whether a profile's servers answer (throws under CI when they do not). */
export async function profileAvailable(profile: Profile): Promise<boolean> {
  if (profile === 'sqlite') return true;
  return (await serviceAvailable('MariaDB', TEST_MYSQL.host, TEST_MYSQL.port)) && (await serviceAvailable('NATS', TEST_NATS.host, TEST_NATS.port));
}

/** Starts the API app (dispatcher in-process) on a fresh database of the given profile. */
export async function startTestApp(profile: Profile, options: TestAppOptions = {}): Promise<TestApp> {
  const cleanups: Array<() => Promise<void> | void> = [];
  const baseEnv: Record<string, string> = {
    ADMIN_TOKEN: 'test-admin-token-' + randomBytes(8).toString('hex'),
    INTERNAL_TOKEN: 'test-internal-token-' + randomBytes(8).toString('hex'),
    LOG_LEVEL: 'info',
    ALLOW_PRIVATE_TARGETS: 'true',
    SHUTDOWN_GRACE_MS: '2s',
  };
  if (profile === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'wh-e2e-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    Object.assign(baseEnv, { STORAGE: 'sqlite', SQLITE_PATH: join(dir, 'service.db'), QUEUE: 'database' });
  } else {
    const database = await createMysqlDatabase('wh_e2e');
    cleanups.push(() => database.drop());
    const natsPrefix = `e2e_${randomBytes(4).toString('hex')}`;
    // The shared NATS server keeps no stream of a finished run.
    cleanups.push(() => deleteTestStream(natsPrefix));
    Object.assign(baseEnv, {
      STORAGE: 'mysql',
      DATABASE_URL: database.url,
      QUEUE: 'nats',
      NATS_URL: TEST_NATS.url,
      NATS_PREFIX: natsPrefix,
    });
  }
  const config = loadConfig({ ...baseEnv, ...options.env });
  const tokens = new OperatorTokens(config.auth.adminToken!, config.auth.internalToken!, config.auth.metricsToken);
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      logs.push(String(chunk));
      callback();
    },
  });
  const app = await createApiApp({ config, tokens, logger: createLogger(config.runtime.logLevel, sink) });
  const http = () => request(app.getHttpServer());
  return {
    app,
    config,
    tokens,
    logs,
    http,
    async createAccount(name = 'Acme') {
      const response = await http().post('/admin/accounts').set('authorization', `Bearer ${tokens.admin}`).send({ name }).expect(201);
      return response.body;
    },
    async close() {
      await app.close();
      for (const cleanup of cleanups.reverse()) await cleanup();
    },
  };
}
