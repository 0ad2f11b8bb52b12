import type { ApiFamily } from '../webhooks/webhook';
import { FeedEvent } from './event-feed.repository';

/** The envelope as a JSON value (CONTRACT §3), never renamed for a family. */
export type Envelope = Record<string, unknown>;

const OTHER: Record<ApiFamily, ApiFamily> = { v3: 'v2', v2: 'v3' };

/**
 * The envelope a webhook of `family` receives for this event: the one serialized at intake for
 * that family, or else the other family's with its `apiVersion` changed (the two differ in
 * nothing else, and parsing keeps the key order). Null when the event was stored with neither.
 */
export function envelopeFor(event: FeedEvent, family: ApiFamily): Envelope | null {
  const own = event.bodies[family];
  if (own !== undefined) return JSON.parse(own) as Envelope;
  const other = event.bodies[OTHER[family]];
  if (other === undefined) return null;
  const envelope = JSON.parse(other) as Envelope;
  envelope.apiVersion = family;
  return envelope;
}
