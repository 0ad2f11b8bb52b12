#!/usr/bin/env node
'use strict';
/**
 * `npm run cli -- ...`: runs the built CLI (dist/apps/api/src/cli.js). It never removes or
 * rewrites a dist a server may be running from: it builds only when there is none (into a fresh
 * folder moved into place), and when the sources are newer than the build it says so on stderr
 * and runs the build it has. In the Docker image there are no sources, only dist.
 */
const { existsSync, readdirSync, statSync } = require('node:fs');
const { join, resolve } = require('node:path');

const root = resolve(__dirname, '..');
const entry = join(root, 'dist/apps/api/src/cli.js');

function newestSource(dir) {
  let newest = 0;
  if (!existsSync(dir)) return newest;
  for (const item of readdirSync(dir, { withFileTypes: true })) {
    if (item.name === 'node_modules') continue;
    const path = join(dir, item.name);
    if (item.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (item.name.endsWith('.ts') && !item.name.endsWith('.spec.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

if (!existsSync(entry)) {
  process.stderr.write('no build yet: building once (npm run build) ...\n');
  const { buildFresh, swapIn } = require('./build');
  const next = buildFresh();
  if (existsSync(entry)) require('node:fs').rmSync(next, { recursive: true, force: true });
  else swapIn(next);
} else {
  const built = statSync(entry).mtimeMs;
  const sources = Math.max(...['apps/api/src', 'libs', 'config'].map((dir) => newestSource(join(root, dir))));
  if (sources > built) process.stderr.write('note: the sources changed since the last build; this runs the built CLI (run `npm run build` to update it)\n');
}

require(entry);
