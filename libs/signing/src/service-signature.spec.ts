import * as fc from 'fast-check';
import { generateSecret } from './secret';
import { computeServiceSignature, isValid, parseSignatureHeader, signServiceSignature, verify } from './service-signature';
import { SignatureError, SignatureErrorCode } from './signature.errors';

const secret = 'whsec_+ZGBPKBiq50JD6BjzQQrb3+3fjqhXExmh0LwsbTOhHg=';
const body = '{"id":"evt_1","type":"email.delivered"}';
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

describe(signServiceSignature.name, () => {
  it('is t= then one lowercase hex v1= per secret, in the given order', () => {
    const [newer, older] = [generateSecret(), generateSecret()];

    const header = signServiceSignature([newer, older], body, t);

    expect(header).toBe(`t=${t},v1=${computeServiceSignature(newer, body, t)},v1=${computeServiceSignature(older, body, t)}`);
    expect(header).toMatch(/^t=\d+(,v1=[0-9a-f]{64}){2}$/);
  });

  it('signs any key string as is (webhook-target keys are not whsec_ secrets)', () => {
    const header = signServiceSignature(['my target key ✓'], body, t);

    expect(isValid(body, header, 'my target key ✓', { now: t })).toBe(true);
  });

  it('refuses no secrets, an empty secret and a timestamp that is not whole seconds', () => {
    expect(() => signServiceSignature([], body, t)).toThrow(RangeError);
    expect(() => signServiceSignature([''], body, t)).toThrow(TypeError);
    expect(() => signServiceSignature([secret], body, t + 0.5)).toThrow(RangeError);
    expect(() => signServiceSignature([secret], body, -1)).toThrow(RangeError);
  });
});

describe(parseSignatureHeader.name, () => {
  it('reads t and every v1 in order, ignoring other schemes and spaces', () => {
    expect(parseSignatureHeader('t=12, v1=aa ,v0=zz,v1=bb')).toEqual({ timestamp: 12, signatures: ['aa', 'bb'] });
  });

  it.each([
    ['an empty header', ''],
    ['no t', 'v1=aa'],
    ['no v1', 't=12'],
    ['an empty v1', 't=12,v1='],
    ['a t that is not a number', 't=abc,v1=aa'],
    ['a negative t', 't=-12,v1=aa'],
    ['a fractional t', 't=12.5,v1=aa'],
    ['two t', 't=12,t=13,v1=aa'],
    ['no key=value at all', 'garbage'],
  ])('throws malformed_header on %s', (_why, header) => {
    expect(codeOf(() => parseSignatureHeader(header))).toBe('malformed_header');
  });

  it('throws malformed_header when the header is not a string (a missing header)', () => {
    expect(codeOf(() => parseSignatureHeader(undefined as unknown as string))).toBe('malformed_header');
  });
});

describe(verify.name, () => {
  const header = signServiceSignature([secret], body, t);

  it('accepts inside the tolerance and rejects at it, in both directions', () => {
    expect(codeOf(() => verify(body, header, secret, { now: t + 299 }))).toBe('passed');
    expect(codeOf(() => verify(body, header, secret, { now: t - 299 }))).toBe('passed');
    expect(codeOf(() => verify(body, header, secret, { now: t + 300 }))).toBe('timestamp_out_of_tolerance');
    expect(codeOf(() => verify(body, header, secret, { now: t - 300 }))).toBe('timestamp_out_of_tolerance');
  });

  it('takes the tolerance as a parameter', () => {
    expect(codeOf(() => verify(body, header, secret, { now: t + 59, toleranceSec: 60 }))).toBe('passed');
    expect(codeOf(() => verify(body, header, secret, { now: t + 60, toleranceSec: 60 }))).toBe('timestamp_out_of_tolerance');
    expect(codeOf(() => verify(body, header, secret, { now: t + 3599, toleranceSec: 3600 }))).toBe('passed');
  });

  it('uses the system clock by default', () => {
    const fresh = signServiceSignature([secret], body, Math.floor(Date.now() / 1000));

    expect(codeOf(() => verify(body, fresh, secret))).toBe('passed');
    expect(codeOf(() => verify(body, header, secret))).toBe('timestamp_out_of_tolerance');
  });

  it('checks the signature before the time, so a forged old header is no_matching_signature', () => {
    expect(codeOf(() => verify(`${body} `, header, secret, { now: t + 10_000 }))).toBe('no_matching_signature');
  });

  it('rejects a header whose t was changed', () => {
    const moved = header.replace(`t=${t}`, `t=${t + 1}`);

    expect(codeOf(() => verify(body, moved, secret, { now: t }))).toBe('no_matching_signature');
  });

  it('accepts when any v1 matches, wherever it is', () => {
    const v1 = computeServiceSignature(secret, body, t);
    const other = computeServiceSignature(generateSecret(), body, t);

    expect(isValid(body, `t=${t},v1=${other},v1=${v1}`, secret, { now: t })).toBe(true);
    expect(isValid(body, `t=${t},v1=${v1},v1=${other}`, secret, { now: t })).toBe(true);
    expect(isValid(body, `t=${t},v1=short,v1=${v1}`, secret, { now: t })).toBe(true);
  });

  it('rejects a v1 that is only a prefix of the right one', () => {
    const v1 = computeServiceSignature(secret, body, t);

    expect(codeOf(() => verify(body, `t=${t},v1=${v1.slice(0, 63)}`, secret, { now: t }))).toBe('no_matching_signature');
  });

  it('throws plain errors, not SignatureError, on bad options', () => {
    expect(() => verify(body, header, secret, { now: t, toleranceSec: 0 })).toThrow(RangeError);
    expect(() => verify(body, header, secret, { now: Number.NaN })).toThrow(RangeError);
    expect(() => isValid(body, header, secret, { now: t, toleranceSec: -1 })).toThrow(RangeError);
  });

  it('accepts every body it signed and rejects every body changed by one byte', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 512 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        fc.string({ minLength: 1 }),
        (bytes, position, delta, key) => {
          const raw = Buffer.from(bytes);
          const signed = signServiceSignature([key], raw, t);
          const changed = Buffer.from(raw);
          const i = position % changed.length;
          changed[i] = (changed[i] + delta) % 256;

          expect(isValid(raw, signed, key, { now: t })).toBe(true);
          expect(isValid(changed, signed, key, { now: t })).toBe(false);
        },
      ),
    );
  });
});
