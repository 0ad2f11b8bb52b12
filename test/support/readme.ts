import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const REPO_ROOT = join(__dirname, '../..');

/**
 * The code of the fenced block that follows `<!-- name -->` in README.md, so that tests run what
 * the README shows. Fails when the marker is missing or used twice.
 */
export function readmeSnippet(name: string, markdown = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')): string {
  const marker = `<!-- ${name} -->`;
  const at = markdown.indexOf(marker);
  if (at < 0) throw new Error(`README.md has no ${marker}`);
  if (markdown.indexOf(marker, at + marker.length) >= 0) throw new Error(`README.md has ${marker} twice`);
  const block = /^[ \t]*\n```[^\n]*\n([\s\S]*?)\n```[ \t]*$/m.exec(markdown.slice(at + marker.length));
  if (!block || block.index !== 0) throw new Error(`README.md: ${marker} is not followed by a fenced code block`);
  return block[1] + '\n';
}
