import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { intersects } from 'semver';
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
    // docker/.env sets each of them, except the stack's own layout
    const layout = ['PORT', 'STORAGE', 'QUEUE', 'SQLITE_PATH', 'DATABASE_URL', 'DISPATCHER_ENABLED', 'DISPATCHER_HEALTH_PORT'];
    const text = read('docker/compose.yaml');
    const fixed = variables.filter((name) => !layout.includes(name) && !new RegExp(`^\\s+${name}: \\$\\{${name}[:}]`, 'm').test(text));
    expect(fixed).toEqual([]);
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

  it('builds and runs on one Node release line that every production dependency supports', () => {
    const majors = [...read('docker/Dockerfile').matchAll(/^FROM node:(\d+)-/gm)].map((m) => Number(m[1]));
    expect(majors.length).toBeGreaterThanOrEqual(2);
    expect(new Set(majors).size).toBe(1);
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { dev?: boolean; engines?: { node?: string } }> };
    const refusing = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && !entry.dev && entry.engines?.node !== undefined && !intersects(`^${majors[0]}`, entry.engines.node))
      .map(([path, entry]) => `${path.replace(/^.*node_modules\//, '')} wants node ${entry.engines!.node}`);
    expect(refusing).toEqual([]);
    // CI runs the suite on that release line too.
    expect(/^tools\/test-on-node\.sh (\d+)\.\d+\.\d+ npm test$/m.exec(read('.ci/run'))?.[1]).toBe(String(majors[0]));
  });

  it('runs the same commands as package.json, on files the build produces', () => {
    const dockerfile = read('docker/Dockerfile');
    const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)![1]) as string[];
    // The scripts `exec` node so that npm's shell hands SIGTERM to it; the image runs node directly.
    const command = (script: string) => script.replace(/^exec /, '');
    expect(cmd.join(' ')).toBe(command(scripts.start));
    expect(compose.services.api.command!.join(' ')).toBe(command(scripts.start));
    expect(compose.services.dispatcher.command!.join(' ')).toBe(command(scripts['start:dispatcher']));
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
      expect(cluster.services[app].environment?.NATS_REPLICAS).toBe('3');
    }
  });
});

describe('docker image: ignore file, health check, CLI, scraping', () => {
  const dockerfile = read('docker/Dockerfile');
  const compose = parse(read('docker/compose.yaml'), { merge: true }) as { services: Record<string, ComposeService> };
  const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
  const finalStage = dockerfile.split(/^FROM /m).pop()!;

  it('keeps data, dependencies, git, builds, test output, databases and .env out of the build context', () => {
    expect(existsSync(join(ROOT, '.dockerignore'))).toBe(true);
    const ignored = read('.dockerignore').split('\n').map((line) => line.trim()).filter((line) => line && !line.startsWith('#'));
    expect(ignored).toEqual(expect.arrayContaining(['data', 'node_modules', '.git', 'dist', 'test-output', '*.db', '.env']));
  });

  it("health-checks either role on its own port with a script the image contains", async () => {
    const healthcheck = /^HEALTHCHECK .*CMD (\[.*\])$/m.exec(dockerfile);
    expect(healthcheck).not.toBeNull();
    const command = JSON.parse(healthcheck![1]) as string[];
    const script = command.find((part) => part.endsWith('.js'))!;
    expect(finalStage).toMatch(new RegExp(`^COPY .*${script.replace('.', '\\.')}.* \\./tools/$`, 'm'));
    expect(finalStage).toMatch(/^ENV .*DISPATCHER_HEALTH_PORT=3001/m);
    // The compose checks probe each service's own port.
    expect(JSON.stringify(compose.services.api.healthcheck?.test)).toContain(`127.0.0.1:${compose.services.api.environment?.PORT}/`);
    expect(JSON.stringify(compose.services.dispatcher.healthcheck?.test)).toContain(`127.0.0.1:${compose.services.dispatcher.environment?.DISPATCHER_HEALTH_PORT}/`);

    // The script itself: healthy when /health answers on PORT or on DISPATCHER_HEALTH_PORT, unhealthy when neither does.
    const server = createServer((request, response) => response.writeHead(request.url === '/health' ? 200 : 404).end('{}'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = String((server.address() as AddressInfo).port);
    const closed = String(await freePort());
    try {
      expect(await exitCode(join(ROOT, script), { PORT: port })).toBe(0);
      expect(await exitCode(join(ROOT, script), { PORT: closed, DISPATCHER_HEALTH_PORT: port })).toBe(0);
      expect(await exitCode(join(ROOT, script), { PORT: closed })).toBe(1);
    } finally {
      server.close();
    }
  });

  it('runs `npm run cli` in the image: the launcher and package.json are in the final stage', () => {
    const launcher = scripts.cli.split(' ').find((part) => part.endsWith('.js'))!;
    expect(existsSync(join(ROOT, launcher))).toBe(true);
    expect(finalStage).toMatch(new RegExp(`^COPY .*${launcher.replace('.', '\\.')}.* \\./tools/$`, 'm'));
    expect(finalStage).toMatch(/^COPY package\.json \.\/$/m);
    expect(finalStage).toMatch(/^COPY --from=build \/app\/dist \.\/dist$/m);
    expect(read('tools/cli.js')).toContain('dist/apps/api/src/cli.js');
    expect(dockerfile).toMatch(/^COPY tools \.\/tools$/m);
  });

  it('scrapes the API and every dispatcher on the ports compose gives them', () => {
    const prometheus = parse(read('docker/prometheus.yml')) as {
      scrape_configs: Array<{ job_name: string; metrics_path: string; static_configs?: Array<{ targets: string[] }>; dns_sd_configs?: Array<{ names: string[]; port: number }> }>;
    };
    const job = (name: string) => prometheus.scrape_configs.find((c) => c.job_name === name)!;
    expect(job('api').metrics_path).toBe('/metrics');
    expect(job('api').static_configs![0].targets).toEqual([`api:${compose.services.api.environment?.PORT}`]);
    expect(job('dispatcher').dns_sd_configs![0]).toMatchObject({ names: ['dispatcher'], port: Number(compose.services.dispatcher.environment?.DISPATCHER_HEALTH_PORT) });
  });
});

function exitCode(script: string, env: Record<string, string>): Promise<number> {
  return new Promise((resolve) => execFile(process.execPath, [script], { env: { PATH: process.env.PATH ?? '', ...env } }, (error) => resolve(error ? Number((error as { code?: number }).code ?? 1) : 0)));
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
