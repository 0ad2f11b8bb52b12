import type { ApiFamily } from '../webhooks/webhook';

/** A stored event as the feed reads it. */
export interface FeedEvent {
  id: string;
  type: string;
  /** Unix seconds, as in the envelope. */
  created: number;
  /** The envelopes serialized at intake, per API family. */
  bodies: Partial<Record<ApiFamily, string>>;
}

/** A place in the feed's order (`created`, then `id`, both descending); a page continues strictly after it. */
export interface FeedPosition {
  created: number;
  id: string;
}

export interface FeedPageQuery {
  accountId: number;
  /** Distinct catalog types; empty for every type. */
  types: string[];
  /** Unix seconds, inclusive. */
  since?: number;
  after?: FeedPosition;
  limit: number;
}

/**
 * Reads an account's events for the feed (CONTRACT §9.2). Events stored without any envelope
 * cannot be shown and are left out (see docs/architecture.md, "event feed").
 */
export abstract class EventFeedRepository {
  /** Newest first: `created` descending, then `id` descending. */
  abstract page(query: FeedPageQuery): Promise<FeedEvent[]>;
  abstract find(accountId: number, id: string): Promise<FeedEvent | null>;
}
