import { invalidWebhookParameter } from '../event-webhooks.errors';
import { EVENT_ID_PATTERN } from '../intake/new-event';
import { FeedPosition } from './event-feed.repository';

const DECODED = /^(\d{1,15}):(.+)$/;

/**
 * A feed cursor is the position of the last event of a page, opaque to clients: a position
 * rather than an offset, so events that arrive while a client pages never shift or repeat a page.
 */
export function encodeFeedCursor(position: FeedPosition): string {
  return Buffer.from(`${position.created}:${position.id}`, 'utf8').toString('base64url');
}

export function decodeFeedCursor(cursor: unknown): FeedPosition {
  const match = typeof cursor === 'string' && cursor.length <= 120 ? DECODED.exec(Buffer.from(cursor, 'base64url').toString('utf8')) : null;
  if (!match || !EVENT_ID_PATTERN.test(match[2])) throw invalidWebhookParameter('cursor is not a cursor this list returned');
  return { created: Number(match[1]), id: match[2] };
}
