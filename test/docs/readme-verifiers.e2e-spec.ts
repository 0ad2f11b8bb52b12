import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isValid } from '../../libs/signing/src';
import { readmeSnippet } from '../support/readme';
import { CapturedDeliveries, captureSignedDeliveries, expectedVerdicts, runHarness, verifierCases, writeCases } from '../support/signed-deliveries';

/**
 * The README's verifiers in other languages, run as written against real deliveries of a running
 * server (SQLite profile: signing does not depend on storage). Python must be there; Go, Ruby and
 * PHP run when their toolchain is installed, and are otherwise only checked for presence.
 */

const HARNESS = join(__dirname, '../support/verifier-harness');

interface Language {
  name: string;
  /** The command whose presence decides whether the snippet runs. */
  command: string;
  required: boolean;
  /** What the snippet must contain: the function the harness calls, and a constant-time comparison. */
  mustContain: RegExp[];
  /** Writes the snippet and its harness into `dir`, builds when needed, returns how to run it on a cases file. */
  prepare(dir: string, snippet: string): { command: string; args: (casesPath: string) => string[]; env?: NodeJS.ProcessEnv };
}

const hasCommand = (command: string) => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;

const LANGUAGES: Language[] = [
  {
    name: 'python',
    command: 'python3',
    required: true,
    mustContain: [/def verify_signature\(/, /hmac\.compare_digest/, /tolerance: int = 300/],
    prepare(dir, snippet) {
      writeFileSync(join(dir, 'verifier.py'), snippet);
      return { command: 'python3', args: (cases) => [join(HARNESS, 'harness.py'), join(dir, 'verifier.py'), cases] };
    },
  },
  {
    name: 'go',
    command: 'go',
    required: false,
    mustContain: [/func VerifySignature\(/, /hmac\.Equal/],
    prepare(dir, snippet) {
      writeFileSync(join(dir, 'verifier.go'), snippet.replace(/^package \w+/m, 'package main'));
      copyFileSync(join(HARNESS, 'harness.go'), join(dir, 'harness.go'));
      const goEnv = { ...process.env, GOCACHE: join(tmpdir(), 'webhook-server-go-cache'), GOPATH: join(tmpdir(), 'webhook-server-go-path'), GOFLAGS: '' };
      const build = spawnSync('go', ['build', '-o', 'verifier', 'verifier.go', 'harness.go'], { cwd: dir, env: goEnv, encoding: 'utf8', timeout: 180_000 });
      if (build.status !== 0) throw new Error(`go build failed:\n${build.stdout}${build.stderr}`);
      return { command: join(dir, 'verifier'), args: (cases) => [cases] };
    },
  },
  {
    name: 'ruby',
    command: 'ruby',
    required: false,
    mustContain: [/def verify_signature\(/, /OpenSSL\.secure_compare/, /tolerance: 300/],
    prepare(dir, snippet) {
      writeFileSync(join(dir, 'verifier.rb'), snippet);
      return { command: 'ruby', args: (cases) => [join(HARNESS, 'harness.rb'), join(dir, 'verifier.rb'), cases] };
    },
  },
  {
    name: 'php',
    command: 'php',
    required: false,
    mustContain: [/function verify_signature\(/, /hash_equals/, /\$tolerance = 300/],
    prepare(dir, snippet) {
      writeFileSync(join(dir, 'verifier.php'), snippet);
      return { command: 'php', args: (cases) => [join(HARNESS, 'harness.php'), join(dir, 'verifier.php'), cases] };
    },
  },
];

describe('README: verifying signatures in other languages', () => {
  let captured: CapturedDeliveries;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wh-verifiers-'));
    captured = await captureSignedDeliveries();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('builds its cases from real deliveries, and the server-side library agrees with every expected verdict', () => {
    const cases = verifierCases(captured);

    expect(captured.single.map((d) => d.header)).toEqual([expect.stringMatching(/^t=\d+,v1=[0-9a-f]{64}$/), expect.stringMatching(/^t=\d+,v1=[0-9a-f]{64}$/)]);
    expect(captured.rotation.header).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(captured.single.some((d) => d.rawBody.some((byte) => byte > 0x7f))).toBe(true);
    const verdicts = Object.fromEntries(cases.map((c) => [c.name, isValid(Buffer.from(c.body, 'base64'), c.header, c.secret)]));
    expect(verdicts).toEqual(expectedVerdicts(cases));
  });

  it.each(LANGUAGES.map((language) => [language.name, language] as const))('%s: the README snippet accepts genuine deliveries and rejects the rest', async (name, language) => {
    const snippet = readmeSnippet(`verifier: ${name}`);
    for (const pattern of language.mustContain) expect(snippet).toMatch(pattern);
    if (!hasCommand(language.command)) {
      if (language.required) throw new Error(`${language.command} is not installed: the README's ${name} verifier cannot be run`);
      console.warn(`${language.command} is not installed: the README's ${name} verifier was only checked for presence, not run`);
      return;
    }
    const langDir = join(dir, name);
    rmSync(langDir, { recursive: true, force: true });
    mkdirSync(langDir);
    const run = language.prepare(langDir, snippet);
    // Built after any compilation, so that the re-signed cases are fresh against the real clock.
    const cases = verifierCases(captured);

    const verdicts = await runHarness(run.command, run.args(writeCases(langDir, cases)), { cwd: langDir, env: run.env });

    expect(verdicts).toEqual(expectedVerdicts(cases));
  }, 240_000);
});
