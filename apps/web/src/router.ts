import { useEffect, useState } from 'preact/hooks';

/**
 * A minimal path router for the few screens of the dashboard: paths under /app/ hold only
 * resource ids (never a secret); the API app answers every /app/* path with the page.
 */
export const BASE = '/app';

export type Route =
  | { name: 'webhooks' }
  /** `eventId`: open the delivery of that event (a link from the events page). */
  | { name: 'webhook'; id: string; eventId?: string }
  | { name: 'events'; eventId?: string }
  | { name: 'automations' }
  | { name: 'workflow'; id: string }
  | { name: 'send-status' };

export function parseRoute(pathname: string, search = ''): Route {
  const rest = pathname.startsWith(BASE) ? pathname.slice(BASE.length) : pathname;
  const parts = rest.split('/').filter(Boolean).map(decodeURIComponent);
  const eventId = new URLSearchParams(search).get('event') ?? undefined;
  if (parts[0] === 'webhooks' && parts[1]) return { name: 'webhook', id: parts[1], ...(eventId ? { eventId } : {}) };
  if (parts[0] === 'events') return { name: 'events', ...(parts[1] ? { eventId: parts[1] } : {}) };
  if (parts[0] === 'automations' && parts[1] === 'workflows' && parts[2]) return { name: 'workflow', id: parts[2] };
  if (parts[0] === 'automations') return { name: 'automations' };
  if (parts[0] === 'send-status') return { name: 'send-status' };
  return { name: 'webhooks' };
}

export function hrefOf(route: Route): string {
  switch (route.name) {
    case 'webhooks':
      return `${BASE}/webhooks`;
    case 'webhook':
      return `${BASE}/webhooks/${encodeURIComponent(route.id)}${route.eventId ? `?event=${encodeURIComponent(route.eventId)}` : ''}`;
    case 'events':
      return `${BASE}/events${route.eventId ? `/${encodeURIComponent(route.eventId)}` : ''}`;
    case 'automations':
      return `${BASE}/automations`;
    case 'workflow':
      return `${BASE}/automations/workflows/${encodeURIComponent(route.id)}`;
    case 'send-status':
      return `${BASE}/send-status`;
  }
}

const listeners = new Set<() => void>();

export function navigate(route: Route): void {
  const href = hrefOf(route);
  if (href !== location.pathname + location.search) history.pushState(null, '', href);
  listeners.forEach((listener) => listener());
}

/** The current route; re-renders on navigate() and on the browser's back and forward. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.pathname, location.search));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.pathname, location.search));
    listeners.add(update);
    addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      removeEventListener('popstate', update);
    };
  }, []);
  return route;
}

/** A same-page link: a real <a href> (open in a new tab works), handled here on a plain click. */
export function onLinkClick(route: Route) {
  return (event: MouseEvent) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(route);
  };
}
