import { createHash } from 'node:crypto';
import { sha256, sha256Hex } from './digest';

describe('sha256', () => {
  it.each(['', 'abc', 'sk_ü€😀 token', 'x'.repeat(10_000)])('matches createHash for %#', (text) => {
    const expected = createHash('sha256').update(text, 'utf8').digest();
    expect(sha256(text).equals(expected)).toBe(true);
    expect(sha256Hex(text)).toBe(expected.toString('hex'));
  });
});
