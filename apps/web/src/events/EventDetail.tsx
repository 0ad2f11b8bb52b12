import { useApi } from '../api/api-context';
import { useResource } from '../api/use-resource';
import { ErrorMessage } from '../components/ErrorMessage';
import { Link } from '../components/Link';
import { StatusBadge } from '../components/StatusBadge';
import { isoOfUnixSeconds } from '../components/format-time';
import { Time } from '../components/Time';
import { visibleText } from '../components/visible-text';

/** One event: its envelope as webhooks receive it, and its delivery on each webhook it went to, with a link to that delivery. */
export function EventDetail({ eventId }: { eventId: string }) {
  const api = useApi();
  const event = useResource(() => api.getEvent(eventId), [api, eventId]);
  const deliveries = useResource(() => api.eventDeliveries(eventId), [api, eventId]);
  const webhooks = useResource(() => api.listWebhooks(), [api]);
  const e = event.data;
  const urlOf = (webhookId: string) => (webhooks.data ?? []).find((w) => w.id === webhookId)?.url;
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
          <ErrorMessage error={deliveries.error} context="Its deliveries could not be loaded" />
          {deliveries.data?.deliveries.length === 0 ? (
            <p class="hint">No webhook subscribed to {e.type} when it arrived.</p>
          ) : (
            <ul aria-label="Deliveries of this event">
              {(deliveries.data?.deliveries ?? []).map((d) => {
                const url = urlOf(d.webhookId);
                return (
                  <li key={d.id}>
                    {url === undefined ? (
                      <>Delivery to a deleted webhook ({d.webhookId})</>
                    ) : (
                      <Link to={{ name: 'webhook', id: d.webhookId, eventId }}>Delivery to {url}</Link>
                    )}{' '}
                    <StatusBadge status={d.status} />
                  </li>
                );
              })}
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
