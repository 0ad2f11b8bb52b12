import { DisabledReason, Webhook } from './webhook';

/** The settings a PUT gives; those left out are not written (a concurrent change to them stays). */
export interface WebhookSettingsChange {
  url?: string;
  events?: string[];
  description?: string | null;
  updatedAt: Date;
}

export interface AttemptTally {
  webhookId: string;
  /** Failed attempts after the last success of the batch (all of them when none succeeded). */
  failures: number;
  /** Whether an attempt of the batch succeeded (the counter restarts at `failures`). */
  reset: boolean;
}

export interface FailureCount {
  consecutiveFailures: number;
  state: Webhook['state'];
}

/** A receiver's Retry-After (429/503): no call to the webhook starts before `until`. */
export interface WebhookPause {
  webhookId: string;
  until: Date;
}

export interface SecretRotation {
  /** The sealed secret being rotated out, as stored. */
  replacing: string;
  sealedSecret: string;
  /** The rotated-out secrets that still sign (previous-secrets.ts), sealed together, and when the last expires. */
  sealedPrevious: string;
  previousExpiresAt: Date;
}

/**
 * Webhooks of an account. Writes are narrow on purpose: the failure counter and the state are
 * changed only by their own atomic statements, never by writing back a whole row that was read.
 */
export abstract class WebhookRepository {
  /** Inserts unless the account already has `maxPerAccount` webhooks; false when the limit is reached. */
  abstract insertWithinLimit(webhook: Webhook, maxPerAccount: number): Promise<boolean>;
  abstract findForAccount(accountId: number, id: string): Promise<Webhook | null>;
  /** As findForAccount; in a unit of work, no other unit of work changes it until this one ends. */
  abstract lockForAccount(accountId: number, id: string): Promise<Webhook | null>;
  abstract findById(id: string): Promise<Webhook | null>;
  /** Oldest first. */
  abstract listForAccount(accountId: number): Promise<Webhook[]>;
  /** Every webhook of these accounts (fan-out filters them by event type). */
  abstract listForAccounts(accountIds: number[]): Promise<Webhook[]>;
  abstract updateSettings(id: string, change: WebhookSettingsChange): Promise<void>;
  /** False when it was already gone. */
  abstract delete(id: string): Promise<boolean>;
  /** state enabled, failures 0, disabledAt and disabledReason null. */
  abstract enable(id: string, at: Date): Promise<void>;
  /**
   * enabled -> disabled, recording why (and, when given, the failure counter it stops at); false
   * when it was already disabled (or is gone).
   */
  abstract disable(id: string, at: Date, reason: DisabledReason, consecutiveFailures?: number): Promise<boolean>;
  /**
   * Makes `rotation.sealedSecret` current and `rotation.sealedPrevious` the secrets still signing
   * beside it, only if the current secret is still `rotation.replacing` (a concurrent rotation did
   * not get there first); false otherwise.
   */
  abstract replaceSecret(id: string, rotation: SecretRotation, at: Date): Promise<boolean>;
  /**
   * Applies a batch of attempts to the failure counters, one statement per webhook (`reset`: a
   * success came before the `failures`, so the counter restarts from them). Returns the counter and
   * state of every webhook of the tallies, read in the same transaction, also of one whose batch
   * ended in a success (its failures before it are retried like any other); only a webhook gone is
   * absent (its failed attempts are cancelled). A disabled webhook's counter stays as it was when it
   * was disabled (calls still in flight then do not move it); enabling restarts it. `readBefore`:
   * the counters of webhooks with a success in the batch as `failureCounts` read them earlier in the
   * same transaction (those are not read again; a webhook absent from it is read).
   */
  abstract tallyAttempts(tallies: AttemptTally[], readBefore?: Map<string, FailureCount>): Promise<Map<string, FailureCount>>;
  /** The counter and state of each of these webhooks that exists (a plain read: no lock). */
  abstract failureCounts(ids: string[]): Promise<Map<string, FailureCount>>;
  /** Records each pause, for every dispatcher to wait out; a pause is extended, never shortened. */
  abstract pauseUntil(pauses: WebhookPause[]): Promise<void>;
  /** Webhooks disabled now, over every account. */
  abstract countDisabled(): Promise<number>;
}
