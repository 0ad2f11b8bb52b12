import { generateSecret, SECRET_PREFIX } from './secret';

describe(generateSecret.name, () => {
  it('is whsec_ followed by the standard base64 of 32 bytes', () => {
    const secret = generateSecret();

    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64')).toHaveLength(32);
  });

  it('is different every time', () => {
    const secrets = new Set(Array.from({ length: 100 }, generateSecret));

    expect(secrets.size).toBe(100);
  });
});
