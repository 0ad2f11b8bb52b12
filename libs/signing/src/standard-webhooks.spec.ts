import { generateSecret } from './secret';
import { SignatureError, SignatureErrorCode } from './signature.errors';
import {
  computeStandardWebhookSignature,
  isValidStandardWebhook,
  signStandardWebhook,
  verifyStandardWebhook,
} from './standard-webhooks';

const secret = 'whsec_+ZGBPKBiq50JD6BjzQQrb3+3fjqhXExmh0LwsbTOhHg=';
const body = '{"id":"evt_1","type":"email.delivered"}';
const id = 'evt_1';
const t = 1763776800;

function codeOf(run: () => unknown): SignatureErrorCode | 'passed' {
  try {
    run();
    return 'passed';
  } catch (error) {
    if (error instanceof SignatureError) return error.code;
    throw error;
  }
}

const headersFor = (signature: string, overrides: Record<string, string | undefined> = {}) => ({
  'webhook-id': id,
  'webhook-timestamp': String(t),
  'webhook-signature': signature,
  ...overrides,
});

describe(signStandardWebhook.name, () => {
  it('is one space-separated v1,<base64> per secret, in the given order', () => {
    const [newer, older] = [generateSecret(), generateSecret()];

    const signature = signStandardWebhook([newer, older], id, body, t);

    expect(signature).toBe(
      `v1,${computeStandardWebhookSignature(newer, id, body, t)} v1,${computeStandardWebhookSignature(older, id, body, t)}`,
    );
  });

  it('keys the HMAC with the decoded secret, so a secret without whsec_ signs the same', () => {
    expect(signStandardWebhook([secret.slice('whsec_'.length)], id, body, t)).toBe(signStandardWebhook([secret], id, body, t));
  });

  it('refuses a secret that is not base64, no secrets and an empty id', () => {
    expect(() => signStandardWebhook(['whsec_not base64!'], id, body, t)).toThrow(TypeError);
    expect(() => signStandardWebhook(['whsec_'], id, body, t)).toThrow(TypeError);
    expect(() => signStandardWebhook([], id, body, t)).toThrow(RangeError);
    expect(() => signStandardWebhook([secret], '', body, t)).toThrow(TypeError);
  });
});

describe(verifyStandardWebhook.name, () => {
  const signature = signStandardWebhook([secret], id, body, t);

  it('accepts inside the tolerance and rejects at it', () => {
    expect(codeOf(() => verifyStandardWebhook(body, headersFor(signature), secret, { now: t + 299 }))).toBe('passed');
    expect(codeOf(() => verifyStandardWebhook(body, headersFor(signature), secret, { now: t + 300 }))).toBe(
      'timestamp_out_of_tolerance',
    );
    expect(codeOf(() => verifyStandardWebhook(body, headersFor(signature), secret, { now: t - 300 }))).toBe(
      'timestamp_out_of_tolerance',
    );
  });

  it('accepts when any v1 matches and ignores other versions', () => {
    const other = signStandardWebhook([generateSecret()], id, body, t);

    expect(isValidStandardWebhook(body, headersFor(`v1a,xyz ${other} ${signature}`), secret, { now: t })).toBe(true);
  });

  it('rejects a tampered body, another id, another timestamp and another secret', () => {
    const now = { now: t };
    expect(codeOf(() => verifyStandardWebhook(`${body} `, headersFor(signature), secret, now))).toBe('no_matching_signature');
    expect(codeOf(() => verifyStandardWebhook(body, headersFor(signature, { 'webhook-id': 'evt_2' }), secret, now))).toBe(
      'no_matching_signature',
    );
    expect(
      codeOf(() => verifyStandardWebhook(body, headersFor(signature, { 'webhook-timestamp': String(t + 1) }), secret, now)),
    ).toBe('no_matching_signature');
    expect(codeOf(() => verifyStandardWebhook(body, headersFor(signature), generateSecret(), now))).toBe('no_matching_signature');
  });

  it('rejects a signature in another case', () => {
    const swapped = `v1,${signature.slice('v1,'.length).replace(/[a-z]/g, (c) => c.toUpperCase())}`;

    expect(codeOf(() => verifyStandardWebhook(body, headersFor(swapped), secret, { now: t }))).toBe('no_matching_signature');
  });

  it.each([
    ['no webhook-id', { 'webhook-id': undefined }],
    ['an empty webhook-id', { 'webhook-id': '' }],
    ['no webhook-timestamp', { 'webhook-timestamp': undefined }],
    ['a webhook-timestamp that is not a number', { 'webhook-timestamp': 'soon' }],
    ['no webhook-signature', { 'webhook-signature': undefined }],
    ['a webhook-signature without v1', { 'webhook-signature': 'v2,abc' }],
    ['an empty v1', { 'webhook-signature': 'v1,' }],
  ])('throws malformed_header on %s', (_why, overrides) => {
    expect(codeOf(() => verifyStandardWebhook(body, headersFor(signature, overrides), secret, { now: t }))).toBe('malformed_header');
  });

  it('reads headers as a framework gives them: any case, arrays refused', () => {
    const mixedCase = { 'Webhook-Id': id, 'WEBHOOK-TIMESTAMP': String(t), 'webhook-signature': signature, host: 'x' };

    expect(isValidStandardWebhook(body, mixedCase, secret, { now: t })).toBe(true);
    expect(codeOf(() => verifyStandardWebhook(body, { ...headersFor(signature), 'webhook-id': [id, id] }, secret, { now: t }))).toBe(
      'malformed_header',
    );
  });
});
