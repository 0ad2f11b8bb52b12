import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Seals secrets for storage (webhook signing secrets, target signing keys): AES-256-GCM with a
 * random IV per value, stored as `v1:<base64(iv | tag | ciphertext)>`. A key ring: new values are
 * sealed with the first key; a stored value opens with whichever key sealed it (GCM's tag tells a
 * wrong key), so keys can be rotated by putting the new one first and resealing.
 */
export class SecretBox {
  private static readonly VERSION = 'v1:';
  private readonly keys: readonly Buffer[];

  constructor(keys: Buffer | readonly Buffer[]) {
    this.keys = Buffer.isBuffer(keys) ? [keys] : [...keys];
    if (this.keys.length === 0) throw new Error('SecretBox needs at least one key');
    if (this.keys.some((key) => key.length !== 32)) throw new Error('SecretBox needs 32-byte keys');
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keys[0], iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return SecretBox.VERSION + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }

  open(sealed: string): string {
    const opened = this.tryOpen(sealed);
    if (opened === null) throw new Error('a stored secret opens with none of the keys (SECRETS_KEY)');
    return opened;
  }

  /** The plain value, or null when no key of the ring opens it. */
  tryOpen(sealed: string): string | null {
    if (!sealed.startsWith(SecretBox.VERSION)) throw new Error('unknown sealed-secret format');
    const raw = Buffer.from(sealed.slice(SecretBox.VERSION.length), 'base64');
    for (const key of this.keys) {
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
        decipher.setAuthTag(raw.subarray(12, 28));
        return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
      } catch {
        // not this key
      }
    }
    return null;
  }

  /** Whether `sealed` was sealed with the first key (nothing to reseal). */
  sealedWithFirstKey(sealed: string): boolean {
    return new SecretBox(this.keys[0]).tryOpen(sealed) !== null;
  }
}
