import { useEffect, useState } from 'preact/hooks';
import { useApi } from '../api/api-context';
import { useAction } from '../api/use-action';
import { usePolling } from '../api/use-polling';
import { useResource } from '../api/use-resource';
import type { EventEnvelope } from '../api/types';
import { ErrorMessage } from '../components/ErrorMessage';
import { Link } from '../components/Link';
import { isoOfUnixSeconds } from '../components/format-time';
import { Time } from '../components/Time';
import { navigate } from '../router';
import { EventDetail } from './EventDetail';

const PAGE_SIZE = 20;
const MAX_PAGE = 100;

/** The event feed (GET /v3/events), kept live: newest first, filtered by type, one event looked up by id. */
export function EventsPage({ eventId }: { eventId?: string }) {
  const api = useApi();
  const catalog = useResource(() => api.eventTypes(), [api]);
  const [type, setType] = useState('');
  const [events, setEvents] = useState<EventEnvelope[] | null>(null);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [lookup, setLookup] = useState(eventId ?? '');

  const refresh = async () => {
    const limit = Math.min(MAX_PAGE, Math.max(PAGE_SIZE, events?.length ?? 0));
    const page = await api.listEvents({ type: type || undefined, limit });
    setEvents(page.events);
    setNextCursor(page.nextCursor);
  };
  const load = useAction(async (cursor?: string) => {
    if (!cursor) return refresh();
    const page = await api.listEvents({ type: type || undefined, limit: PAGE_SIZE, cursor });
    setEvents((current) => [...(current ?? []), ...page.events]);
    setNextCursor(page.nextCursor);
  });
  useEffect(() => {
    void load.run();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api, type]);
  usePolling(refresh);

  const submitLookup = (event: Event) => {
    event.preventDefault();
    const id = lookup.trim();
    if (id) navigate({ name: 'events', eventId: id });
  };

  return (
    <>
      <div class="page-head">
        <h1 tabIndex={-1}>Events</h1>
        <div class="actions">
          <label for="event-type-filter">Type</label>
          <select id="event-type-filter" value={type} onChange={(e) => setType(e.currentTarget.value)}>
            <option value="">All types</option>
            {catalog.data?.map((t) => (
              <option key={t.type} value={t.type}>
                {t.type}
              </option>
            ))}
          </select>
          <button type="button" onClick={() => void load.run()} disabled={load.busy}>
            Refresh
          </button>
        </div>
      </div>
      <p class="lead">Every event of this account, newest first, as your webhooks receive it, whether or not one subscribes to it. This page refreshes itself while it is open.</p>
      <form class="inline-form" onSubmit={submitLookup} aria-label="Look up an event">
        <label for="event-lookup">Event id</label>
        <input id="event-lookup" class="mono" placeholder="evt_…" value={lookup} onInput={(e) => setLookup(e.currentTarget.value)} />
        <button type="submit">Look up</button>
      </form>
      {eventId ? <EventDetail key={eventId} eventId={eventId} /> : null}
      <ErrorMessage error={catalog.error} context="The event catalog could not be loaded" />
      <ErrorMessage error={load.error} context="The events could not be loaded" />
      {events === null ? (
        load.busy ? (
          <p>Loading…</p>
        ) : null
      ) : events.length === 0 ? (
        <p>No events{type ? ` of type ${type}` : ''} yet.</p>
      ) : (
        <div class="table-wrap">
          <table class="dense" aria-label="Events, newest first">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Type</th>
                <th scope="col">Event id</th>
              </tr>
            </thead>
            <tbody>
              {events.map((event) => (
                <tr key={event.id} class={event.id === eventId ? 'selected' : undefined}>
                  <td>
                    <Time iso={isoOfUnixSeconds(event.created)} />
                  </td>
                  <td class="mono">{event.type}</td>
                  <td class="mono">
                    <Link to={{ name: 'events', eventId: event.id }}>{event.id}</Link>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {nextCursor ? (
        <button type="button" onClick={() => void load.run(nextCursor)} disabled={load.busy}>
          Load older events
        </button>
      ) : null}
    </>
  );
}
