import { Injectable } from '@nestjs/common';
import { EventCatalog } from '../catalog/event-catalog';
import { eventNotFound, invalidWebhookParameter } from '../event-webhooks.errors';
import { EVENT_ID_PATTERN } from '../intake/new-event';
import { parseInstant } from '../iso-instant';
import type { ApiFamily } from '../webhooks/webhook';
import { EventFeedRepository } from './event-feed.repository';
import { Envelope, envelopeFor } from './feed-envelope';
import { decodeFeedCursor, encodeFeedCursor } from './feed-cursor';

export interface EventFeedQuery {
  /** One type or several, comma-separated. */
  type?: string;
  /** ISO 8601; events whose `created` is at or after it. */
  since?: string;
  limit?: number;
  cursor?: string;
}

export interface EventFeedPage {
  events: Envelope[];
  nextCursor: string | null;
}

export const DEFAULT_FEED_PAGE_SIZE = 20;
export const MAX_FEED_PAGE_SIZE = 100;

/**
 * The event feed (CONTRACT §9.2): every event of an account, newest first, as the envelope a
 * webhook of the caller's API family receives. The polling alternative to webhooks.
 */
@Injectable()
export class EventFeedService {
  constructor(
    private readonly feed: EventFeedRepository,
    private readonly catalog: EventCatalog,
  ) {}

  async list(accountId: number, family: ApiFamily, query: EventFeedQuery): Promise<EventFeedPage> {
    const types = query.type === undefined ? [] : this.checkTypes(query.type);
    const since = query.since === undefined ? undefined : Math.ceil(parseInstant(query.since).getTime() / 1000);
    const limit = query.limit ?? DEFAULT_FEED_PAGE_SIZE;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_FEED_PAGE_SIZE) {
      throw invalidWebhookParameter(`limit must be an integer from 1 to ${MAX_FEED_PAGE_SIZE}`);
    }
    const after = query.cursor === undefined ? undefined : decodeFeedCursor(query.cursor);
    const rows = await this.feed.page({ accountId, types, since, after, limit: limit + 1 });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      events: page.flatMap((event): Envelope[] => {
        const envelope = envelopeFor(event, family);
        return envelope ? [envelope] : [];
      }),
      nextCursor: rows.length > limit ? encodeFeedCursor(last) : null,
    };
  }

  async get(accountId: number, family: ApiFamily, id: string): Promise<Envelope> {
    const event = EVENT_ID_PATTERN.test(id) ? await this.feed.find(accountId, id) : null;
    const envelope = event && event.id === id ? envelopeFor(event, family) : null;
    if (!envelope) throw eventNotFound(id);
    return envelope;
  }

  private checkTypes(list: string): string[] {
    const types = [...new Set(list.split(',').map((type) => type.trim()))];
    for (const type of types) {
      if (!this.catalog.has(type)) throw invalidWebhookParameter(`type: unknown event type ${JSON.stringify(type.slice(0, 100))}`);
    }
    return types;
  }
}
