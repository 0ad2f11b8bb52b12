/**
 * Deletes an account with everything it owns and cancels its waiting work. Implemented by the
 * storage adapter, which knows the tables; the account stops authenticating as soon as the
 * deletion starts. Calling it again after an interruption finishes the job.
 */
export abstract class AccountDeletion {
  /** False when there is no such account (nor one whose deletion was interrupted). */
  abstract delete(accountId: number, at: Date): Promise<boolean>;
}
