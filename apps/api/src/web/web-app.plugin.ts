import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where the dashboard is served; its build uses the same base (apps/web/vite.config.ts). */
export const WEB_BASE = '/app';

/**
 * The page loads its own script and stylesheet and talks to its own origin, nothing else: no
 * inline script or style, no framing, and no form may submit anywhere (a form posted before the
 * script ran could otherwise carry the API key into a URL).
 */
export const WEB_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': WEB_CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

/** Hashed file names (vite): a file's content never changes under its name, so a year and immutable. */
const ASSET_MAX_AGE_MS = 365 * 24 * 3600 * 1000;
/** The page itself names the current hashed files: always revalidated. */
const PAGE_CACHE_CONTROL = 'no-cache';

export const NOT_BUILT_MESSAGE =
  'The dashboard is not built: run `npm run build` (it writes dist/web), then restart the server. `npm start` does both.';

export interface WebAppOptions {
  /** The built dashboard (index.html and assets/), or null when it was not built. */
  assetsDir: string | null;
}

/**
 * Serves the dashboard at /app: files under /app/assets/ through @fastify/static, every other
 * /app path answered with index.html (the page routes on the client). Without a build, every /app
 * path answers 503 with the contract's error shape, saying how to build it.
 */
export function registerWebApp(fastify: FastifyInstance, { assetsDir }: WebAppOptions): void {
  void fastify.register(async (scope) => {
    scope.addHook('onSend', async (_request, reply, payload) => {
      for (const [name, value] of Object.entries(SECURITY_HEADERS)) void reply.header(name, value);
      return payload;
    });

    if (assetsDir === null) {
      scope.log.warn(`dashboard not served at ${WEB_BASE}: ${NOT_BUILT_MESSAGE}`);
      const notBuilt = async (_request: unknown, reply: FastifyReply) =>
        reply.status(503).header('cache-control', 'no-store').type('application/json; charset=utf-8').send({ code: 'unavailable', message: NOT_BUILT_MESSAGE });
      for (const url of [WEB_BASE, `${WEB_BASE}/`, `${WEB_BASE}/*`]) scope.get(url, notBuilt);
      return;
    }

    const page = readFileSync(join(assetsDir, 'index.html'));
    await scope.register(fastifyStatic, {
      root: join(assetsDir, 'assets'),
      prefix: `${WEB_BASE}/assets/`,
      decorateReply: false,
      index: false,
      dotfiles: 'deny',
      // Cache-Control: public, max-age=31536000, immutable
      cacheControl: true,
      maxAge: ASSET_MAX_AGE_MS,
      immutable: true,
    });
    const sendPage = async (_request: unknown, reply: FastifyReply) => reply.header('cache-control', PAGE_CACHE_CONTROL).type('text/html; charset=utf-8').send(page);
    for (const url of [WEB_BASE, `${WEB_BASE}/`, `${WEB_BASE}/*`]) scope.get(url, sendPage);
  });
}
