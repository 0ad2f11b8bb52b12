export interface ListPage<T> {
  items: T[];
  nextCursor: string | null;
}

/**
 * The list after its top was read again: the fresh page stands for the range it covers, and the
 * items shown below that range stay, with the cursor that follows them. The page alone is the list
 * when it is the whole list, when it covers everything shown, or when it shares nothing with what is
 * shown (more arrived than a page holds: the older items are a cursor away again).
 */
export function mergeTop<T extends { id: string }>(shown: T[], shownCursor: string | null, page: ListPage<T>): ListPage<T> {
  const fresh = new Set(page.items.map((item) => item.id));
  let lastCovered = -1;
  shown.forEach((item, index) => {
    if (fresh.has(item.id)) lastCovered = index;
  });
  if (page.nextCursor === null || lastCovered === -1 || lastCovered === shown.length - 1) return page;
  return { items: [...page.items, ...shown.slice(lastCovered + 1).filter((item) => !fresh.has(item.id))], nextCursor: shownCursor };
}
