import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ListPage, mergeTop } from './list-merge';
import { usePolling } from './use-polling';

const PAGE_SIZE = 20;
/** The API's largest page: how much of the top of a list live refresh reads again at most. */
export const MAX_PAGE = 100;

export interface LiveList<T> {
  /** null until the first page arrives. */
  items: T[] | null;
  nextCursor: string | null;
  /** The last load's error, also a live refresh's; cleared by the next load that succeeds. */
  error: unknown;
  busy: boolean;
  /** The first page again, replacing what is shown (Refresh, a changed filter). */
  reload: () => Promise<void>;
  /** Appends the next page (the API's nextCursor). */
  loadOlder: () => Promise<void>;
  /** Reads the top of the list again and merges it in, keeping the older pages already loaded. */
  refresh: () => Promise<void>;
}

/**
 * A newest-first list the API pages with `?cursor=&limit=`, kept live while the tab is visible:
 * every POLL_INTERVAL_MS the top of it (as many items as the first pages hold, up to 100) is read
 * again and merged in, so newer items appear, statuses move, and the older pages a user loaded stay.
 * Answers to a request made before the last change of `deps` (a filter) are dropped.
 */
export function useLiveList<T extends { id: string }>(
  fetchPage: (query: { cursor?: string; limit: number }) => Promise<ListPage<T>>,
  deps: unknown[],
): LiveList<T> {
  const [items, setItems] = useState<T[] | null>(null);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const shown = useRef<{ items: T[] | null; nextCursor: string | null }>({ items: null, nextCursor: null });
  const generation = useRef(0);
  const fetchLatest = useRef(fetchPage);
  fetchLatest.current = fetchPage;

  const show = (next: T[], cursor: string | null) => {
    shown.current = { items: next, nextCursor: cursor };
    setItems(next);
    setNextCursor(cursor);
    setError(undefined);
  };

  /** Runs `load` for the list as it is now; a failure is shown, not thrown. Live refresh is not `busy` (buttons stay enabled). */
  const guarded = async (load: (mine: number) => Promise<void>, showBusy = true) => {
    const mine = generation.current;
    if (showBusy) setBusy(true);
    try {
      await load(mine);
    } catch (caught) {
      if (mine === generation.current) setError(caught);
    } finally {
      if (showBusy && mine === generation.current) setBusy(false);
    }
  };

  const reload = useCallback(async () => {
    const mine = ++generation.current;
    await guarded(async () => {
      const page = await fetchLatest.current({ limit: PAGE_SIZE });
      if (mine === generation.current) show(page.items, page.nextCursor);
    });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);

  const loadOlder = async () => {
    const cursor = shown.current.nextCursor;
    if (!cursor) return;
    await guarded(async (mine) => {
      const page = await fetchLatest.current({ cursor, limit: PAGE_SIZE });
      if (mine !== generation.current || shown.current.nextCursor !== cursor) return;
      const current = shown.current.items ?? [];
      const known = new Set(current.map((item) => item.id));
      show([...current, ...page.items.filter((item) => !known.has(item.id))], page.nextCursor);
    });
  };

  const refresh = async () => {
    const before = shown.current;
    if (before.items === null) return reload();
    const limit = Math.min(MAX_PAGE, Math.max(PAGE_SIZE, before.items.length));
    await guarded(async (mine) => {
      const page = await fetchLatest.current({ limit });
      if (mine !== generation.current || shown.current !== before) return;
      const merged = mergeTop(before.items!, before.nextCursor, page);
      show(merged.items, merged.nextCursor);
    }, false);
  };

  useEffect(() => {
    void reload();
  }, [reload]);
  usePolling(refresh);

  return { items, nextCursor, error, busy, reload, loadOlder, refresh };
}
