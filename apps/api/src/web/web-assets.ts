import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * Where `npm run build` writes the dashboard (vite, apps/web/vite.config.ts): dist/web. Seen from
 * the compiled app (dist/apps/api/src/web) that is ../../../../web; seen from the sources (tests
 * run them through ts-jest) it is ../../../../dist/web.
 */
export const WEB_ASSETS_CANDIDATES = [resolve(__dirname, '../../../../web'), resolve(__dirname, '../../../../dist/web')];

/** The first folder holding a built dashboard (index.html), or null when it was not built. */
export function locateWebAssets(candidates: readonly string[] = WEB_ASSETS_CANDIDATES): string | null {
  return candidates.find((dir) => existsSync(join(dir, 'index.html'))) ?? null;
}
