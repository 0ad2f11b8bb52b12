import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { generateSecret, signServiceSignature } from '../../libs/signing/src';
import { eventually } from './eventually';
import { ReceivedRequest, startReceiver } from './receiver';
import { startTestApp } from './test-app';

/** A delivery as the receiver got it: the signature header and the exact body bytes. */
export interface CapturedDelivery {
  header: string;
  rawBody: Buffer;
}

export interface CapturedDeliveries {
  /** The webhook's secret before the rotation. */
  firstSecret: string;
  /** The secret `rotate-secret` answered. */
  rotatedSecret: string;
  /** Signed with `firstSecret` alone (one of them with non-ASCII bytes in the body). */
  single: CapturedDelivery[];
  /** Sent after the rotation: one `v1` per secret, newest first. */
  rotation: CapturedDelivery;
}

/**
 * One check for a verifier: `valid` is what a correct verifier of CONTRACT §3 answers for this
 * body, header and secret at the time the check runs (the real clock, tolerance 300 s).
 */
export interface VerifierCase {
  name: string;
  /** The raw body, base64, so that every language gets the exact bytes. */
  body: string;
  header: string;
  secret: string;
  valid: boolean;
}

const delivered = (idSending: number) => ({
  email: 'jane@example.com',
  idSending,
  sendingType: 1,
  diagCode: '250 2.0.0 OK',
  deliveredAt: '2025-11-22T02:00:00.000Z',
});

/**
 * Real deliveries from the server's own signer: a SQLite test app delivers events to a local
 * receiver, before and after a secret rotation, and the receiver keeps the headers and raw bytes.
 */
export async function captureSignedDeliveries(): Promise<CapturedDeliveries> {
  const app = await startTestApp('sqlite');
  const receiver = await startReceiver({ status: 204 });
  try {
    const account = await app.createAccount('Zoë & Co — "ünïcödé" 🚀');
    const v3 = (path: string) => app.http().post(`/v3${path}`).set('api-key', account.apiKey);
    const webhook = (await v3('/Webhook').send({ url: `${receiver.url}/hooks`, events: ['email.delivered'] }).expect(201)).body;
    const publish = (idSending: number) =>
      app.http().post('/internal/events').set('authorization', `Bearer ${app.tokens.internal}`).send({ accountId: account.id, type: 'email.delivered', data: delivered(idSending) }).expect(202);
    const received = (count: number) =>
      eventually(() => {
        if (receiver.requests.length < count) throw new Error(`${receiver.requests.length} of ${count} deliveries received`);
        return receiver.requests.slice(0, count);
      }, 15_000);

    await publish(1);
    await publish(2);
    const single = (await received(2)).map(captured);
    const rotatedSecret = (await v3(`/Webhook/${webhook.id}/rotate-secret`).expect(200)).body.secret as string;
    await publish(3);
    const rotation = captured((await received(3))[2]);
    return { firstSecret: webhook.secret, rotatedSecret, single, rotation };
  } finally {
    await receiver.close();
    await app.close();
  }
}

function captured(request: ReceivedRequest): CapturedDelivery {
  const header = request.headers['x-service-signature'];
  if (typeof header !== 'string') throw new Error(`a delivery without X-Service-Signature: ${JSON.stringify(request.headers)}`);
  return { header, rawBody: request.rawBody };
}

/**
 * The genuine deliveries (accepted), the rotation header with either secret (accepted), and what
 * must be rejected: a tampered body, another secret, an authentic signature 310 s old or ahead,
 * uppercase hex, a header without `v1`, and an empty header.
 */
export function verifierCases(captured: CapturedDeliveries, now = Math.floor(Date.now() / 1000)): VerifierCase[] {
  const { firstSecret, rotatedSecret, single, rotation } = captured;
  const [first] = single;
  const oneByteChanged = Buffer.from(first.rawBody);
  oneByteChanged[oneByteChanged.indexOf('jane@')] = 'J'.charCodeAt(0);
  const resigned = (secondsFromNow: number) => signServiceSignature([firstSecret], first.rawBody, now + secondsFromNow);
  const item = (name: string, rawBody: Buffer, header: string, secret: string, valid: boolean): VerifierCase => ({
    name,
    body: rawBody.toString('base64'),
    header,
    secret,
    valid,
  });
  return [
    ...single.map((d, i) => item(`genuine delivery ${i + 1}`, d.rawBody, d.header, firstSecret, true)),
    item('rotation header, new secret', rotation.rawBody, rotation.header, rotatedSecret, true),
    item('rotation header, old secret', rotation.rawBody, rotation.header, firstSecret, true),
    item('authentic, 200 s old', first.rawBody, resigned(-200), firstSecret, true),
    item('tampered body', oneByteChanged, first.header, firstSecret, false),
    item('wrong secret', first.rawBody, first.header, generateSecret(), false),
    item('rotation header, wrong secret', rotation.rawBody, rotation.header, generateSecret(), false),
    item('authentic, 310 s old', first.rawBody, resigned(-310), firstSecret, false),
    item('authentic, 310 s ahead', first.rawBody, resigned(310), firstSecret, false),
    item('uppercase hex', first.rawBody, first.header.toUpperCase().replace('T=', 't=').replace(/V1=/g, 'v1='), firstSecret, false),
    item('no v1', first.rawBody, first.header.replace(/,v1=.*$/, ''), firstSecret, false),
    item('empty header', first.rawBody, '', firstSecret, false),
  ];
}

/** What each case should give, as `name -> valid`, to compare with a harness's answers. */
export function expectedVerdicts(cases: VerifierCase[]): Record<string, boolean> {
  return Object.fromEntries(cases.map((c) => [c.name, c.valid]));
}

/** Writes the cases to `<dir>/cases.json` and returns its path (every harness reads that file). */
export function writeCases(dir: string, cases: VerifierCase[]): string {
  const path = join(dir, 'cases.json');
  writeFileSync(path, JSON.stringify(cases));
  return path;
}

/**
 * Runs a verifier harness (`command args...`) that prints one `<case name>\t<true|false>` line per
 * case, and returns its verdicts as `name -> valid`.
 */
export async function runHarness(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<Record<string, boolean>> {
  const { stdout } = await promisify(execFile)(command, args, { cwd: options.cwd, env: options.env ?? process.env, timeout: 120_000 });
  const verdicts: Record<string, boolean> = {};
  for (const line of stdout.split('\n').filter((l) => l.trim() !== '')) {
    const [name, verdict] = line.split('\t');
    if (verdict !== 'true' && verdict !== 'false') throw new Error(`unexpected harness output line: ${JSON.stringify(line)}\n${stdout}`);
    verdicts[name] = verdict === 'true';
  }
  return verdicts;
}
