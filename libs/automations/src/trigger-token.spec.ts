import { createHash } from 'node:crypto';
import { generateTriggerToken, hashTriggerToken } from './trigger-token';

describe(generateTriggerToken.name, () => {
  it('carries 256 random bits in base64url', () => {
    const tokens = new Set(Array.from({ length: 1000 }, generateTriggerToken));
    expect(tokens.size).toBe(1000);
    for (const token of tokens) {
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    }
  });
});

describe(hashTriggerToken.name, () => {
  it('is the hex SHA-256 of the token, and not the token', () => {
    const token = generateTriggerToken();
    const hash = hashTriggerToken(token);
    expect(hash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).not.toContain(token);
    expect(hashTriggerToken(token)).toBe(hash);
    expect(hashTriggerToken(token + 'x')).not.toBe(hash);
  });
});
