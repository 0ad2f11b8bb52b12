import { DomainError } from './errors';
import { IdPrefix, looksLikeId } from './ids';

/** A page request of a list ordered by id (oldest first): `?limit=` and `?cursor=` (the last id of the previous page). */
export interface IdPageQuery {
  limit?: number;
  cursor?: string;
}

export interface IdPage<T> {
  items: T[];
  nextCursor: string | null;
}

/** At most this many per page, and by default as many (a list bounded by a per-account limit fits in one). */
export const MAX_ID_PAGE = 100;

/**
 * Checks a page request of ids with `prefix`, reads `limit + 1` rows after the cursor through
 * `read`, and cuts the page (a next cursor only when more rows follow).
 */
export async function readIdPage<T extends { id: string }>(
  prefix: IdPrefix,
  query: IdPageQuery,
  read: (afterId: string | null, limit: number) => Promise<T[]>,
): Promise<IdPage<T>> {
  const limit = query.limit ?? MAX_ID_PAGE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_ID_PAGE) throw new DomainError('invalid_parameter', `limit must be an integer from 1 to ${MAX_ID_PAGE}`);
  if (query.cursor !== undefined && !looksLikeId(prefix, query.cursor)) throw new DomainError('invalid_parameter', 'cursor is not a cursor this list returned');
  const rows = await read(query.cursor ?? null, limit + 1);
  const items = rows.slice(0, limit);
  return { items, nextCursor: rows.length > limit ? items[items.length - 1].id : null };
}
