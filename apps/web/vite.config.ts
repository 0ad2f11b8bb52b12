import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The dashboard (apps/web): Preact with esbuild's own JSX transform, no framework plugin.
 * `npm run build` writes it to dist/web, which the API app serves at /app (apps/api/src/web).
 * `npx vite --config apps/web/vite.config.ts` runs a dev server that proxies the API on :3000.
 */
const webRoot = fileURLToPath(new URL('.', import.meta.url));
const api = process.env.API_ORIGIN ?? 'http://localhost:3000';

export default defineConfig({
  root: webRoot,
  base: '/app/',
  publicDir: false,
  clearScreen: false,
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: fileURLToPath(new URL('../../dist/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // Nothing inlined as data: URLs, so the page's Content-Security-Policy stays strict.
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
  server: {
    proxy: Object.fromEntries(['/v3', '/hooks'].map((path) => [path, { target: api, changeOrigin: true }])),
  },
});
