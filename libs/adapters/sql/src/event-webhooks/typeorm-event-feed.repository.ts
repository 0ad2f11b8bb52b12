import { EventFeedRepository, FeedEvent, FeedPageQuery } from '../../../../event-webhooks/src/event-feed/event-feed.repository';
import { TypeormDatabase } from '../typeorm-database';
import { placeholders } from './multi-row-insert';

interface FeedRow {
  id: string;
  type: string;
  created: number | string;
  body_v3: string | null;
  body_v2: string | null;
}

const ORDER = 'ORDER BY created DESC, id DESC';
/** Events stored without any envelope (before every event kept one) cannot be shown. */
const HAS_ENVELOPE = '(body_v3 IS NOT NULL OR body_v2 IS NOT NULL)';

const toFeedEvent = (row: FeedRow): FeedEvent => ({
  id: row.id,
  type: row.type,
  created: Number(row.created),
  bodies: { ...(row.body_v3 === null ? {} : { v3: row.body_v3 }), ...(row.body_v2 === null ? {} : { v2: row.body_v2 }) },
});

/**
 * The event feed over the `events` table. A page is found by keys first, one range scan of
 * ix_events_feed (all types) or of ix_events_feed_type per type (several types are merged in one
 * UNION ALL, each arm cut at the page size), then only that page's bodies are read.
 */
export class TypeormEventFeedRepository extends EventFeedRepository {
  constructor(private readonly db: TypeormDatabase) {
    super();
  }

  async page(query: FeedPageQuery): Promise<FeedEvent[]> {
    const limit = Math.max(1, Math.trunc(query.limit));
    const arms = (query.types.length === 0 ? [undefined] : query.types).map((type) => this.keysOf(query, type, limit));
    const sql =
      arms.length === 1
        ? arms[0].sql
        : `${arms.map((arm, i) => `SELECT id, created FROM (${arm.sql}) arm${i}`).join(' UNION ALL ')} ${ORDER} LIMIT ${limit}`;
    const keys = await this.db.query<{ id: string }>(sql, arms.flatMap((arm) => arm.params));
    if (keys.length === 0) return [];
    const ids = keys.map((key) => key.id);
    const rows = await this.db.query<FeedRow>(`SELECT id, type, created, body_v3, body_v2 FROM events WHERE ${this.db.filterOnly('account_id')} = ? AND id IN (${placeholders(ids)})`, [
      query.accountId,
      ...ids,
    ]);
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.flatMap((id) => {
      const row = byId.get(id);
      return row ? [toFeedEvent(row)] : [];
    });
  }

  async find(accountId: number, id: string): Promise<FeedEvent | null> {
    const [row] = await this.db.query<FeedRow>(`SELECT id, type, created, body_v3, body_v2 FROM events WHERE account_id = ? AND id = ? AND ${HAS_ENVELOPE}`, [accountId, id]);
    return row ? toFeedEvent(row) : null;
  }

  private keysOf({ accountId, since, after }: FeedPageQuery, type: string | undefined, limit: number): { sql: string; params: unknown[] } {
    const where = ['account_id = ?'];
    const params: unknown[] = [accountId];
    if (type !== undefined) {
      where.push('type = ?');
      params.push(type);
    }
    if (since !== undefined) {
      where.push('created >= ?');
      params.push(since);
    }
    if (after) {
      where.push('(created < ? OR (created = ? AND id < ?))');
      params.push(after.created, after.created, after.id);
    }
    where.push(HAS_ENVELOPE);
    return { sql: `SELECT id, created FROM events WHERE ${where.join(' AND ')} ${ORDER} LIMIT ${limit}`, params };
  }
}
