import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

/**
 * Docker cannot run on our machines, so what can be checked without it is checked here: the
 * compose files parse and wire every variable the server reads, and the image runs exactly the
 * commands the README and package.json run.
 */
const ROOT = join(__dirname, '../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** Every variable config/env.schema.ts documents (`/** NAME: ...`). */
function documentedVariables(): string[] {
  return [...read('config/env.schema.ts').matchAll(/\/\*\* ([A-Z][A-Z0-9_]+):/g)].map((m) => m[1]);
}

interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  healthcheck?: { test: unknown };
  deploy?: { replicas?: unknown };
  depends_on?: Record<string, { condition: string }>;
}

describe('docker files', () => {
  const compose = parse(read('docker/compose.yaml'), { merge: true }) as { services: Record<string, ComposeService>; volumes: Record<string, unknown> };
  const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;

  it('runs MySQL, NATS JetStream, the API and replicated dispatchers, each with a health check', () => {
    expect(Object.keys(compose.services)).toEqual(expect.arrayContaining(['mysql', 'nats', 'api', 'dispatcher']));
    for (const [name, service] of Object.entries(compose.services)) {
      expect({ name, healthcheck: Boolean(service.healthcheck?.test) }).toEqual({ name, healthcheck: true });
    }
    expect(compose.services.nats.command).toEqual(expect.arrayContaining(['--jetstream']));
    expect(compose.services.dispatcher.deploy?.replicas).toBeDefined();
    expect(Object.keys(compose.volumes)).toEqual(expect.arrayContaining(['mysql-data', 'nats-data']));
  });

  it('wires every configuration variable into both apps', () => {
    const variables = documentedVariables();
    expect(variables.length).toBeGreaterThanOrEqual(20);
    const contract = ['PORT', 'PUBLIC_BASE_URL', 'ADMIN_TOKEN', 'INTERNAL_TOKEN', 'STORAGE', 'SQLITE_PATH', 'DATABASE_URL', 'QUEUE', 'NATS_URL', 'DELIVERY_TIMEOUT_MS', 'DELIVERY_RETRY_SCHEDULE', 'WEBHOOK_DISABLE_AFTER', 'TARGET_RETRY_SCHEDULE', 'ALLOW_PRIVATE_TARGETS', 'SECRET_ROTATION_GRACE', 'SEND_STATUS_RETENTION_DAYS', 'SECRETS_KEY', 'NATS_PREFIX'];
    expect(variables).toEqual(expect.arrayContaining(contract));
    for (const app of ['api', 'dispatcher']) {
      const environment = compose.services[app].environment ?? {};
      expect({ app, missing: contract.filter((name) => !(name in environment)) }).toEqual({ app, missing: [] });
      expect(environment.STORAGE).toBe('mysql');
      expect(environment.QUEUE).toBe('nats');
    }
    expect(compose.services.api.environment?.DISPATCHER_ENABLED).toBe('false');
    // Variables that tune one process kind are set on that service; every other one on both.
    const perProcess = ['DISPATCHER_ENABLED', 'DISPATCHER_CONCURRENCY', 'DISPATCHER_ORIGIN_CONCURRENCY', 'DISPATCHER_HEALTH_PORT', 'SHUTDOWN_GRACE_MS'];
    const wired = new Set([...Object.keys(compose.services.api.environment ?? {}), ...Object.keys(compose.services.dispatcher.environment ?? {})]);
    expect(variables.filter((name) => !wired.has(name) && !perProcess.includes(name))).toEqual([]);
  });

  it('requires the secrets (and lists them in .env.example) instead of shipping defaults', () => {
    const text = read('docker/compose.yaml');
    const required = [...text.matchAll(/\$\{([A-Z_]+):\?/g)].map((m) => m[1]);
    expect(new Set(required)).toEqual(new Set(['PUBLIC_BASE_URL', 'ADMIN_TOKEN', 'INTERNAL_TOKEN', 'MYSQL_PASSWORD', 'SECRETS_KEY']));
    const example = read('docker/.env.example');
    for (const name of required) expect(example).toMatch(new RegExp(`^${name}=`, 'm'));
  });

  it('builds a multi-stage, non-root image with production dependencies only', () => {
    const dockerfile = read('docker/Dockerfile');
    const stages = dockerfile.split(/^FROM /m).slice(1);
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const final = stages[stages.length - 1];
    expect(final).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
    expect(dockerfile).toMatch(/RUN npm run build/);
  });

  it('runs the same commands as package.json, on files the build produces', () => {
    const dockerfile = read('docker/Dockerfile');
    const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)![1]) as string[];
    expect(cmd.join(' ')).toBe(scripts.start);
    expect(compose.services.api.command!.join(' ')).toBe(scripts.start);
    expect(compose.services.dispatcher.command!.join(' ')).toBe(scripts['start:dispatcher']);
    for (const command of [scripts.start, scripts['start:dispatcher']]) {
      const entry = command.split(' ').find((part) => part.endsWith('.js'))!;
      expect(existsSync(join(ROOT, entry))).toBe(true);
    }
  });

  it('has a 3-node JetStream cluster overlay the apps connect to', () => {
    const cluster = parse(read('docker/compose.nats-cluster.yaml'), { merge: true }) as { services: Record<string, ComposeService> };
    const nodes = ['nats', 'nats-2', 'nats-3'];
    for (const node of nodes) {
      expect(cluster.services[node].command).toEqual(expect.arrayContaining(['--jetstream', '--cluster_name', 'webhooks']));
    }
    for (const app of ['api', 'dispatcher']) {
      expect(cluster.services[app].environment?.NATS_URL.split(',')).toHaveLength(3);
    }
  });
});
