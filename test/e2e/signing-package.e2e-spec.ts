import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { captureSignedDeliveries, CapturedDeliveries, expectedVerdicts, runHarness, verifierCases, writeCases } from '../support/signed-deliveries';

/**
 * libs/signing as receivers get it: `npm pack` builds the tarball, which is installed into an empty
 * folder without the network, and a separate Node process verifies real deliveries of a running
 * server (SQLite profile: signing does not depend on storage) through `require` and `import`.
 */

const run = promisify(execFile);
const PACKAGE_DIR = join(__dirname, '../../libs/signing');
const REPO_NODE_MODULES = join(__dirname, '../../node_modules');
const manifest = JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8'));
const HARNESS = join(__dirname, '../support/verifier-harness');

interface PackResult {
  filename: string;
  files: Array<{ path: string }>;
}

describe('the signing package', () => {
  let dir: string;
  let consumer: string;
  let packed: PackResult;
  let captured: CapturedDeliveries;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wh-signing-pkg-'));
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: PACKAGE_DIR, timeout: 120_000 });
    [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as PackResult[];
    consumer = join(dir, 'receiver');
    mkdirSync(consumer);
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'receiver', private: true }));
    // --offline: the package has no dependencies, so installing it must not need the network.
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', join(dir, packed.filename)], { cwd: consumer, timeout: 120_000 });
    captured = await captureSignedDeliveries();
  }, 240_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is an MIT package with no dependencies that ships built JavaScript, types, README and LICENSE only', () => {
    expect(manifest).toMatchObject({ name: 'webhook-server-signing', license: 'MIT', main: './dist/index.js', types: './dist/index.d.ts' });
    expect(manifest.dependencies ?? {}).toEqual({});
    const files = packed.files.map((f) => f.path);
    expect(files).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json', 'dist/index.js', 'dist/index.d.ts', 'dist/service-signature.js']));
    expect(files.filter((f) => !/^(LICENSE|README\.md|package\.json|dist\/[\w.-]+\.(js|d\.ts))$/.test(f))).toEqual([]);
    expect(files.filter((f) => /spec|vectors/.test(f))).toEqual([]);
    const installed = JSON.parse(readFileSync(join(consumer, 'node_modules', manifest.name, 'package.json'), 'utf8'));
    expect(installed).toMatchObject({ name: manifest.name, version: manifest.version, license: 'MIT' });
  });

  it.each(['harness.cjs', 'harness.mjs'])('verifies real deliveries from another Node process (%s)', async (harness) => {
    copyFileSync(join(HARNESS, harness), join(consumer, harness));
    const cases = verifierCases(captured);

    const verdicts = await runHarness(process.execPath, [harness, writeCases(consumer, cases), manifest.name], { cwd: consumer });

    expect(verdicts).toEqual(expectedVerdicts(cases));
  });

  it('type-checks a TypeScript receiver against its declarations', async () => {
    writeFileSync(
      join(consumer, 'receiver.ts'),
      [
        `import { isValid, SignatureError, verify, type SignatureErrorCode, type VerifyOptions } from '${manifest.name}';`,
        `const options: VerifyOptions = { toleranceSec: 300 };`,
        `export function check(raw: Buffer, header: string | undefined, secret: string): SignatureErrorCode | 'ok' {`,
        `  try {`,
        `    verify(raw, header ?? '', secret, options);`,
        `    return 'ok';`,
        `  } catch (error) {`,
        `    if (error instanceof SignatureError) return error.code;`,
        `    throw error;`,
        `  }`,
        `}`,
        `export const valid: boolean = isValid('{}', 't=1,v1=00', 'whsec_x');`,
      ].join('\n'),
    );
    const tsc = join(REPO_NODE_MODULES, 'typescript/bin/tsc');
    const flags = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022'];
    await expect(run(process.execPath, [tsc, ...flags, '--typeRoots', join(REPO_NODE_MODULES, '@types'), '--types', 'node', 'receiver.ts'], { cwd: consumer })).resolves.toBeDefined();
  }, 120_000);
});
