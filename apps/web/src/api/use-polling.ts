import { useEffect, useRef } from 'preact/hooks';

/** How often an open screen asks the API again. */
export const POLL_INTERVAL_MS = 4000;
/** Hourly figures change slowly: asked for less often. */
export const STATS_POLL_INTERVAL_MS = 30_000;

/**
 * Live refresh: calls `refresh` every `intervalMs` while the tab is visible, and once at once when
 * the tab becomes visible again; nothing while it is hidden. A call still running is not overlapped.
 */
export function usePolling(refresh: () => Promise<unknown>, intervalMs = POLL_INTERVAL_MS): void {
  const latest = useRef(refresh);
  latest.current = refresh;
  useEffect(() => {
    let running = false;
    const tick = async () => {
      if (running || document.visibilityState !== 'visible') return;
      running = true;
      try {
        await latest.current();
      } catch {
        // Each screen shows its own load errors; the next tick tries again.
      } finally {
        running = false;
      }
    };
    const timer = setInterval(() => void tick(), intervalMs);
    const onVisibility = () => {
      if (document.visibilityState === 'visible') void tick();
    };
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [intervalMs]);
}
