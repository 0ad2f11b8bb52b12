import type { ApiFamily } from '../webhooks/webhook';

export interface StoredEvent {
  id: string;
  accountId: number;
  type: string;
  /** Unix seconds, as in the envelope. */
  created: number;
  receivedAt: Date;
  /** The serialized envelope per API family that has a delivery of it: sent byte for byte on every attempt. */
  bodies: Partial<Record<ApiFamily, string>>;
}

/** Event ids are unique per account: a producer's id is its idempotency key within the account. */
export function eventKey(event: { accountId: number; id: string }): string {
  return `${event.accountId}/${event.id}`;
}

export abstract class EventRepository {
  /**
   * Multi-row insert that skips events already stored (a producer's repeated id, even one racing in
   * another transaction). Returns the eventKey of each event this call inserted.
   */
  abstract insertNew(events: StoredEvent[]): Promise<Set<string>>;
  /**
   * Deletes at most `limit` events whose `created` (Unix seconds) is before `cutoffSeconds`, oldest
   * first, with their deliveries and those deliveries' attempts; returns how many events. An event
   * with a delivery still waiting (pending or retrying) is kept until it settles: it was accepted and
   * is owed its attempts (CONTRACT §3); the retry schedule is finite, so a later run takes it.
   */
  abstract deleteCreatedBefore(cutoffSeconds: number, limit: number): Promise<number>;
}
