import { useApi } from '../api/api-context';
import { useResource } from '../api/use-resource';
import { ErrorMessage } from '../components/ErrorMessage';
import { Link } from '../components/Link';
import { isoOfUnixSeconds } from '../components/format-time';
import { Time } from '../components/Time';
import { visibleText } from '../components/visible-text';

/** One event: its envelope as webhooks receive it, and a link to its delivery on each webhook subscribed to its type. */
export function EventDetail({ eventId }: { eventId: string }) {
  const api = useApi();
  const event = useResource(() => api.getEvent(eventId), [api, eventId]);
  const webhooks = useResource(() => api.listWebhooks(), [api]);
  const e = event.data;
  const subscribed = e ? (webhooks.data ?? []).filter((w) => w.events.includes(e.type)) : [];
  return (
    <section class="card" aria-label={`Event ${eventId}`}>
      <h2 class="mono">{eventId}</h2>
      <ErrorMessage error={event.error} context="The event could not be loaded" />
      {e ? (
        <>
          <dl class="facts">
            <div>
              <dt>Type</dt>
              <dd class="mono">{e.type}</dd>
            </div>
            <div>
              <dt>Created</dt>
              <dd>
                <Time iso={isoOfUnixSeconds(e.created)} />
              </dd>
            </div>
          </dl>
          <h3>Deliveries</h3>
          {subscribed.length === 0 ? (
            <p class="hint">No webhook of this account subscribes to {e.type} now.</p>
          ) : (
            <ul aria-label="Deliveries of this event">
              {subscribed.map((w) => (
                <li key={w.id}>
                  <Link to={{ name: 'webhook', id: w.id, eventId }}>Delivery to {w.url}</Link>
                </li>
              ))}
            </ul>
          )}
          <h3>Envelope</h3>
          <pre class="body envelope" aria-label="Envelope">
            {visibleText(JSON.stringify(e, null, 2))}
          </pre>
        </>
      ) : event.loading ? (
        <p>Loading…</p>
      ) : null}
    </section>
  );
}
