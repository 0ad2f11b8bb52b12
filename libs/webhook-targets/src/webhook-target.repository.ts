import { WebhookTarget } from './webhook-target';

export abstract class WebhookTargetRepository {
  abstract insert(target: WebhookTarget): Promise<void>;
  /** Writes name, url, headers, key and updatedAt of an existing target of the account. */
  abstract update(target: WebhookTarget): Promise<void>;
  abstract findById(accountId: number, id: string): Promise<WebhookTarget | null>;
  /** As findById; in a unit of work, no other unit of work changes it until this one ends (a change built on what was read is never overwritten). */
  abstract lockById(accountId: number, id: string): Promise<WebhookTarget | null>;
  /**
   * Which of `ids` are targets of the account. In a unit of work, those found cannot be deleted
   * until it ends, and a delete under way is waited for: a workflow that names them commits with
   * them in place (see TargetUsage).
   */
  abstract holdExisting(accountId: number, ids: readonly string[]): Promise<Set<string>>;
  /** The account's targets by id (oldest first), after `afterId` when given, at most `limit`. */
  abstract listByAccount(accountId: number, afterId: string | null, limit: number): Promise<WebhookTarget[]>;
  /** How many targets the account has; in a unit of work, the account's other creates wait for its commit (the limit's check). */
  abstract countByAccount(accountId: number): Promise<number>;
  /** False when the account has no such target. */
  abstract delete(accountId: number, id: string): Promise<boolean>;
}

/** Which workflows call a target in one of their steps (a target in use cannot be deleted). */
export abstract class TargetUsage {
  /**
   * In a unit of work, reads what is committed now (not the unit's first snapshot), and a workflow
   * that would start using the target waits for the unit to end.
   */
  abstract workflowsUsing(accountId: number, targetId: string): Promise<Array<{ id: string; name: string }>>;
}
