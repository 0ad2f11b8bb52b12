/** A list's `?limit=&cursor=` as the services take them (the DTO has checked `limit` is digits). */
export function pageQueryOf(query: { limit?: string; cursor?: string }): { limit?: number; cursor?: string } {
  return { limit: query.limit === undefined ? undefined : Number(query.limit), cursor: query.cursor };
}
