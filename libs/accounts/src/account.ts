import { echoed, notFound } from '../../kernel/src';

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
  /** First 8 characters of the key; null for keys created before prefixes were stored (not recoverable from the hash). */
  prefix: string | null;
  createdAt: Date;
  revokedAt: Date | null;
  /** Last authenticated use, written at most once a minute per key. */
  lastUsedAt: Date | null;
}

/** An active key found by its hash, with the account it opens. */
export interface ActiveApiKey {
  keyId: string;
  account: Account;
}

export interface AccountPage {
  accounts: Account[];
  /** The `cursor` of the next page; null on the last. */
  nextCursor: string | null;
}

export interface ApiKeyView {
  id: string;
  prefix: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
}

/**
 * An account id written by an operator (a path of /admin/accounts, an argument of the CLI): the
 * decimal form of a positive integer and nothing else, so `1.0`, `01` and `1 ` name no account.
 * Anything else is `not_found`, as an id of no account is.
 */
export function parseAccountId(text: string): number {
  if (!/^[1-9]\d{0,14}$/.test(text)) throw notFound(`account ${echoed(text)} not found`);
  return Number(text);
}
