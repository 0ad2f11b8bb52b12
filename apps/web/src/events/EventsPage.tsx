import { useState } from 'preact/hooks';
import { useApi } from '../api/api-context';
import { usePolling } from '../api/use-polling';
import { useLiveList } from '../api/use-live-list';
import { useResource } from '../api/use-resource';
import { ErrorMessage } from '../components/ErrorMessage';
import { Link } from '../components/Link';
import { isoOfUnixSeconds } from '../components/format-time';
import { Time } from '../components/Time';
import { navigate, onLinkClick } from '../router';
import { EventDetail } from './EventDetail';

/** The event feed (GET /v3/events), kept live: newest first, filtered by type, one event looked up by id. */
export function EventsPage({ eventId }: { eventId?: string }) {
  const api = useApi();
  const catalog = useResource(() => api.eventTypes(), [api]);
  // The catalog is read once; after a failure (the server was away) it is asked again with the list.
  usePolling(async () => {
    if (catalog.error !== undefined) await catalog.reload();
  });
  const [type, setType] = useState('');
  const list = useLiveList(
    (page) => api.listEvents({ type: type || undefined, ...page }).then((p) => ({ items: p.events, nextCursor: p.nextCursor })),
    [api, type],
  );
  const events = list.items;
  const [lookup, setLookup] = useState(eventId ?? '');

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
          <button type="button" onClick={() => void list.reload()} disabled={list.busy}>
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
      <ErrorMessage error={list.error} context="The events could not be loaded" />
      {events === null ? (
        list.busy ? (
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
                // A click anywhere on the row opens the event (on a narrow screen the id column may be out of view).
                <tr key={event.id} class={event.id === eventId ? 'selected opens' : 'opens'} onClick={onLinkClick({ name: 'events', eventId: event.id })}>
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
      {list.nextCursor ? (
        <button type="button" onClick={() => void list.loadOlder()} disabled={list.busy}>
          Load older events
        </button>
      ) : null}
    </>
  );
}
