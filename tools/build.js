#!/usr/bin/env node
'use strict';
/**
 * `npm run build`: compiles the apps (tsc) and the dashboard (vite) into a fresh folder, then
 * swaps it in for dist/ with two renames, so a server running from this checkout never sees a
 * missing or half-written dist (only the old one, then the new one).
 */
const { execFileSync } = require('node:child_process');
const { existsSync, renameSync, rmSync } = require('node:fs');
const { join, resolve } = require('node:path');

const root = resolve(__dirname, '..');
const dist = join(root, 'dist');

/** Runs a tool of node_modules/.bin (tsc, vite), as npm scripts do. */
function run(bin, args) {
  execFileSync(join(root, 'node_modules/.bin', bin), args, { cwd: root, stdio: 'inherit' });
}

/** Builds everything into a new folder next to dist and returns it. */
function buildFresh() {
  const next = join(root, `dist.next-${process.pid}`);
  rmSync(next, { recursive: true, force: true });
  try {
    run('tsc', ['-p', 'tsconfig.build.json', '--outDir', next]);
    run('vite', ['build', '--config', 'apps/web/vite.config.ts', '--outDir', join(next, 'web'), '--emptyOutDir', '--logLevel', 'warn']);
    return next;
  } catch (error) {
    rmSync(next, { recursive: true, force: true });
    throw error;
  }
}

/** Puts `next` in place of dist; the previous dist is removed afterwards. */
function swapIn(next) {
  const old = join(root, `dist.old-${process.pid}`);
  const hadDist = existsSync(dist);
  if (hadDist) renameSync(dist, old);
  renameSync(next, dist);
  if (hadDist) rmSync(old, { recursive: true, force: true });
}

module.exports = { buildFresh, swapIn, dist };

if (require.main === module) {
  try {
    swapIn(buildFresh());
  } catch (error) {
    process.stderr.write(`build failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
