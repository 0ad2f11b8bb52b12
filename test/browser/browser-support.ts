import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrowserContext, chromium, Page } from 'playwright-core';

const ROOT = join(__dirname, '../..');
const WEB_SOURCES = join(ROOT, 'apps/web');
const WEB_BUILD = join(ROOT, 'dist/web/index.html');

/** Debian's chromium (apt-get install chromium); CHROMIUM_PATH overrides it. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOTS = join(ROOT, 'test-output/screenshots');

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Whether the browser suite can run. Without chromium: under CI a failing test says so (the
 * suite must not pass by skipping); elsewhere a warning, and the suite is skipped.
 */
export function browserAvailable(): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  const message = `chromium is not installed at ${CHROMIUM_PATH} (apt-get install -y --no-install-recommends chromium, or set CHROMIUM_PATH)`;
  if (process.env.CI) {
    test('chromium is installed for the browser suite', () => {
      throw new Error(`${message}; CI is set, so the browser suite fails instead of being skipped`);
    });
  } else {
    console.warn(`${message}: skipping the browser suite (set CI=1 to make this a failure)`);
  }
  return false;
}

/**
 * The suite tests the built dashboard, as served in production. `npm test` builds first; run
 * alone (`npx jest test/browser`), the web app is built here when dist/web is missing or older
 * than a file of apps/web.
 */
export function ensureWebBuild(): void {
  if (existsSync(WEB_BUILD) && newestMtime(WEB_SOURCES) <= statSync(WEB_BUILD).mtimeMs) return;
  execFileSync(join(ROOT, 'node_modules/.bin/vite'), ['build', '--config', 'apps/web/vite.config.ts', '--logLevel', 'warn'], { cwd: ROOT, stdio: 'inherit' });
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** A TCP port free right now on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface BrowserSession {
  context: BrowserContext;
  page: Page;
  /** Every URL the page requested. */
  requests: string[];
  /** Page errors and console errors other than the browser's own "Failed to load resource" lines. */
  problems: string[];
  close(): Promise<void>;
}

/** Chromium with a fresh, throw-away profile. */
export async function launchBrowser(): Promise<BrowserSession> {
  const userDataDir = mkdtempSync(join(tmpdir(), 'wh-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1100, height: 820 },
    deviceScaleFactor: 1,
    locale: 'en-GB',
    timezoneId: 'UTC',
  });
  context.setDefaultTimeout(10_000);
  const page = context.pages()[0] ?? (await context.newPage());
  const requests: string[] = [];
  const problems: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    // A 4xx the test provoked on purpose is logged by the browser itself; the page shows it in words.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(`console: ${message.text()}`);
  });
  return {
    context,
    page,
    requests,
    problems,
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** Saves a screenshot for review under test-output/screenshots/. */
export async function screenshot(page: Page, name: string, fullPage = true): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage });
}
