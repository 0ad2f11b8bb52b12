import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO_ROOT } from '../support/readme';

/** `npm ci && npm test` must pass on a clone of this repository alone: no code reads the product's shared folder beside the clone. */

const SCANNED = ['apps', 'libs', 'test', 'config'];
const SKIPPED = new Set(['node_modules', 'dist']);
// Built from parts so that this file does not match itself.
const OUTSIDE = new RegExp(['\\.\\./shared\\b', '/work/' + 'shared\\b', 'shared/' + 'vectors'].join('|'));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED.has(entry.name) ? [] : sourceFiles(path);
    return /\.(ts|tsx|js|cjs|mjs|json)$/.test(entry.name) ? [path] : [];
  });
}

describe('a self-contained repository', () => {
  it('has no code or test that reads the shared folder outside the repository', () => {
    const files = SCANNED.flatMap((dir) => sourceFiles(join(REPO_ROOT, dir)));
    expect(files.length).toBeGreaterThan(100);

    const offenders = files.filter((file) => OUTSIDE.test(readFileSync(file, 'utf8'))).map((file) => relative(REPO_ROOT, file));

    expect(offenders).toEqual([]);
  });
});
