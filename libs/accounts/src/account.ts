export interface Account {
  id: number;
  name: string;
  createdAt: Date;
}

export interface ApiKeyRecord {
  id: string;
  accountId: number;
  /** SHA-256 of the key: keys carry 256 bits of randomness, so a fast hash is safe to store. */
  keyHash: string;
  /** Last characters of the key, to tell keys apart in a listing without revealing them. */
  hint: string;
  createdAt: Date;
  revokedAt: Date | null;
}
