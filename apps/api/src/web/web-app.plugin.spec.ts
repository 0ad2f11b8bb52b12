import Fastify, { FastifyInstance } from 'fastify';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { locateWebAssets } from './web-assets';
import { NOT_BUILT_MESSAGE, registerWebApp, WEB_CONTENT_SECURITY_POLICY } from './web-app.plugin';

describe('the dashboard routes', () => {
  let dir: string;
  let app: FastifyInstance;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'web-assets-'));
  });
  afterEach(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const start = async (assetsDir: string | null) => {
    app = Fastify({ logger: false });
    registerWebApp(app, { assetsDir });
    await app.ready();
    return app;
  };

  const build = () => {
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>dashboard</title><script type="module" src="/app/assets/main-abc123.js"></script>');
    writeFileSync(join(dir, 'assets', 'main-abc123.js'), 'console.log("hi")');
    return dir;
  };

  it('finds a build by its index.html, and nothing when there is none', () => {
    expect(locateWebAssets([join(dir, 'nope'), dir])).toBeNull();
    build();
    expect(locateWebAssets([join(dir, 'nope'), dir])).toBe(dir);
  });

  it('serves the page at /app and for every client-side path under it, with a strict CSP and no caching', async () => {
    await start(build());
    for (const url of ['/app', '/app/', '/app/webhooks', '/app/webhooks/wh_123', '/app/automations/workflows/wf_1']) {
      const response = await app.inject({ method: 'GET', url });
      expect({ url, status: response.statusCode }).toEqual({ url, status: 200 });
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.body).toContain('<title>dashboard</title>');
      expect(response.headers['content-security-policy']).toBe(WEB_CONTENT_SECURITY_POLICY);
      expect(response.headers['cache-control']).toBe('no-cache');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['x-frame-options']).toBe('DENY');
    }
    expect(WEB_CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(WEB_CONTENT_SECURITY_POLICY).toContain("form-action 'none'");
    expect(WEB_CONTENT_SECURITY_POLICY).not.toContain('unsafe');
  });

  it('serves hashed assets for a year, immutable, and a missing asset as 404 rather than the page', async () => {
    await start(build());
    const asset = await app.inject({ method: 'GET', url: '/app/assets/main-abc123.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['content-type']).toMatch(/javascript/);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(asset.headers['x-content-type-options']).toBe('nosniff');
    expect((await app.inject({ method: 'GET', url: '/app/assets/missing-000.js' })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: '/app/assets/../index.html' })).body).not.toContain('console.log');
  });

  it('answers 503 with the way to build it when the dashboard was not built', async () => {
    await start(null);
    for (const url of ['/app', '/app/', '/app/webhooks']) {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(503);
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.json()).toEqual({ code: 'unavailable', message: NOT_BUILT_MESSAGE });
    }
    expect(NOT_BUILT_MESSAGE).toContain('npm run build');
  });

  it('leaves every other path alone', async () => {
    await start(build());
    expect((await app.inject({ method: 'GET', url: '/application' })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: '/v3/Webhook' })).statusCode).toBe(404);
  });
});
