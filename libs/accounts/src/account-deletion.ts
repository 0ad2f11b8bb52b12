/**
 * How long a deleted account's row stays, invisible, before its deletion is finished. Another
 * process may still act for the account after the first passes: its key stays cached there for
 * API_KEY_CACHE_MS, and a request it authenticated may still be writing. The second passes, this
 * long after the first, find what such a request wrote.
 */
export const ACCOUNT_DELETION_GRACE_MS = 60_000;

/**
 * Deletes an account with everything it owns and cancels its waiting work. Implemented by the
 * storage adapter, which knows the tables. The account stops authenticating, and its trigger URLs
 * stop answering, as soon as the deletion starts.
 */
export abstract class AccountDeletion {
  /**
   * Marks the account deleted and deletes what it owns; its row stays, invisible, until
   * finishDeletions. False when there is no such account, or its deletion has already started.
   */
  abstract delete(accountId: number, at: Date): Promise<boolean>;

  /**
   * For each account marked deleted at or before `deletedBefore`: deletes what it owns again (rows
   * written after the first passes, or left by an interrupted deletion), then its row. Returns how
   * many accounts it finished.
   */
  abstract finishDeletions(deletedBefore: Date): Promise<number>;
}
