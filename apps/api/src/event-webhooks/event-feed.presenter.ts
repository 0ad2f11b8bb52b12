import type { ApiFamily, EventFeedPage } from '../../../../libs/event-webhooks/src';

/**
 * The feed's page: only its own key is in the family's casing (`nextCursor`, v2 `next_cursor`);
 * the envelopes are shown exactly as webhooks receive them, never renamed.
 */
export function eventFeedPage(page: EventFeedPage, family: ApiFamily) {
  return family === 'v2' ? { events: page.events, next_cursor: page.nextCursor } : { events: page.events, nextCursor: page.nextCursor };
}
