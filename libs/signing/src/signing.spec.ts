import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { isValid, sign, signServiceSignature, SignatureError, SignatureErrorCode, verify, verifyStandardWebhook } from './index';

/** Vectors computed independently of this code (copied from the product's shared vectors). */
const VECTORS_PATH = path.resolve(__dirname, '../test/vectors.json');

interface SingleVector {
  secret: string;
  t: number;
  body: string;
  header: string;
  webhookId: string;
  webhookSignature: string;
}
interface CheckVector {
  why: string;
  secret: string;
  body: string;
  header: string;
  now: number;
}
interface Vectors {
  single: SingleVector[];
  rotation: { secrets: string[]; t: number; body: string; header: string };
  must_reject: CheckVector[];
  must_accept: CheckVector[];
}

function loadVectors(): Vectors {
  if (!existsSync(VECTORS_PATH)) {
    throw new Error(`Signing test vectors are missing: expected them at ${VECTORS_PATH}`);
  }
  const vectors = JSON.parse(readFileSync(VECTORS_PATH, 'utf8')) as Vectors;
  for (const key of ['single', 'rotation', 'must_reject', 'must_accept'] as const) {
    if (!vectors[key]) throw new Error(`Signing test vectors at ${VECTORS_PATH} have no "${key}"`);
  }
  return vectors;
}

const vectors = loadVectors();

/** The vectors give a reason in words; this is the code each must produce. An unknown reason fails. */
const REJECTION_CODES: Record<string, SignatureErrorCode> = {
  'body changed by one byte': 'no_matching_signature',
  'timestamp 300 s old': 'timestamp_out_of_tolerance',
  'timestamp 300 s in the future': 'timestamp_out_of_tolerance',
  'uppercase hex is not what was sent': 'no_matching_signature',
  'no v1': 'malformed_header',
  'signed with another secret': 'no_matching_signature',
};

function codeOf(run: () => void): SignatureErrorCode | 'passed' {
  try {
    run();
    return 'passed';
  } catch (error) {
    if (error instanceof SignatureError) return error.code;
    throw error;
  }
}

describe('signing vectors', () => {
  it('has vectors in every group', () => {
    expect(vectors.single.length).toBeGreaterThan(0);
    expect(vectors.must_reject.length).toBeGreaterThan(0);
    expect(vectors.must_accept.length).toBeGreaterThan(0);
  });

  describe(sign.name, () => {
    it.each(vectors.single.map((v) => [v.webhookId, v] as const))('signs %s exactly as the vector', (_id, v) => {
      const signed = sign({ secrets: [v.secret], body: v.body, timestamp: v.t, id: v.webhookId });

      expect(signed).toEqual({
        signature: v.header,
        webhookId: v.webhookId,
        webhookTimestamp: String(v.t),
        webhookSignature: v.webhookSignature,
      });
    });

    it.each(vectors.single.map((v) => [v.webhookId, v] as const))('signs the UTF-8 bytes of %s the same as the string', (_id, v) => {
      const signed = sign({ secrets: [v.secret], body: Buffer.from(v.body, 'utf8'), timestamp: v.t, id: v.webhookId });

      expect(signed.signature).toBe(v.header);
      expect(signed.webhookSignature).toBe(v.webhookSignature);
    });

    it('puts one v1 per secret, newest first, on rotation', () => {
      const { secrets, body, t, header } = vectors.rotation;

      const signed = sign({ secrets, body, timestamp: t, id: 'evt_rotation' });

      expect(signed.signature).toBe(header);
      expect(signServiceSignature(secrets, body, t)).toBe(header);
      expect(signed.webhookSignature.split(' ')).toHaveLength(secrets.length);
    });
  });

  describe(verify.name, () => {
    it.each(vectors.single.map((v) => [v.webhookId, v] as const))('accepts the vector header of %s', (_id, v) => {
      expect(codeOf(() => verify(v.body, v.header, v.secret, { now: v.t }))).toBe('passed');
      expect(isValid(Buffer.from(v.body, 'utf8'), v.header, v.secret, { now: v.t })).toBe(true);
    });

    it.each(vectors.must_reject.map((v) => [v.why, v] as const))('rejects: %s', (why, v) => {
      const expected = REJECTION_CODES[why];
      if (!expected) throw new Error(`Unclassified must_reject vector "${why}": add its expected code to REJECTION_CODES`);

      expect(codeOf(() => verify(v.body, v.header, v.secret, { now: v.now }))).toBe(expected);
      expect(isValid(v.body, v.header, v.secret, { now: v.now })).toBe(false);
    });

    it.each(vectors.must_accept.map((v) => [v.why, v] as const))('accepts: %s', (_why, v) => {
      expect(codeOf(() => verify(v.body, v.header, v.secret, { now: v.now }))).toBe('passed');
      expect(isValid(v.body, v.header, v.secret, { now: v.now })).toBe(true);
    });

    it.each(vectors.rotation.secrets.map((secret, i) => [i, secret] as const))('accepts the rotation header with secret #%i alone', (_i, secret) => {
      const { body, t, header } = vectors.rotation;

      expect(isValid(body, header, secret, { now: t })).toBe(true);
    });
  });

  describe(verifyStandardWebhook.name, () => {
    it.each(vectors.single.map((v) => [v.webhookId, v] as const))('accepts the vector webhook-signature of %s', (_id, v) => {
      const headers = { 'webhook-id': v.webhookId, 'webhook-timestamp': String(v.t), 'webhook-signature': v.webhookSignature };

      expect(codeOf(() => verifyStandardWebhook(v.body, headers, v.secret, { now: v.t }))).toBe('passed');
    });

    it.each(vectors.single.map((v) => [v.webhookId, v] as const))('rejects %s with another webhook-id', (_id, v) => {
      const headers = { 'webhook-id': `${v.webhookId}x`, 'webhook-timestamp': String(v.t), 'webhook-signature': v.webhookSignature };

      expect(codeOf(() => verifyStandardWebhook(v.body, headers, v.secret, { now: v.t }))).toBe('no_matching_signature');
    });
  });
});
