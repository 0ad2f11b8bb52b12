import { useEffect, useRef } from 'preact/hooks';
import { useApi } from '../api/api-context';
import { useResource } from '../api/use-resource';
import type { Delivery } from '../api/types';
import { ErrorMessage } from '../components/ErrorMessage';
import { Link } from '../components/Link';
import { StatusBadge } from '../components/StatusBadge';
import { Time } from '../components/Time';
import { AttemptList } from './AttemptList';
import { visibleText } from '../components/visible-text';

const STATUS_MEANING: Record<Delivery['status'], string> = {
  pending: 'Waiting for its first attempt.',
  retrying: 'An attempt failed; the next one is scheduled.',
  succeeded: 'The endpoint answered 2xx.',
  failed: 'Every attempt of the retry schedule failed.',
  skipped: 'The webhook was disabled before it was delivered. Recover or retry it once the webhook is enabled.',
  cancelled: 'The webhook was deleted.',
};

/** Retrying makes sense only where no success is recorded and the delivery is not cancelled. */
export const RETRYABLE: ReadonlySet<Delivery['status']> = new Set(['failed', 'skipped', 'retrying', 'succeeded']);

/** One delivery in full: the envelope as sent (from the event feed), every attempt, and retry where it makes sense. */
export function DeliveryDetail({
  delivery,
  family,
  enabled,
  busy,
  onRetry,
  onClose,
}: {
  delivery: Delivery;
  /** The family that created the webhook: its envelope's apiVersion. */
  family: 'v3' | 'v2';
  /** Whether the webhook is enabled: a disabled one refuses retries. */
  enabled: boolean;
  busy: boolean;
  onRetry: () => void;
  onClose: () => void;
}) {
  const api = useApi();
  // A family's envelope differs only in apiVersion, and is never snake_cased (CONTRACT §9.2): the v3
  // feed's, with the webhook's family in its place, is the one its receiver got.
  const envelope = useResource(() => api.getEvent(delivery.eventId).then((e) => ({ ...e, apiVersion: family })), [api, delivery.eventId, family]);
  const panel = useRef<HTMLElement>(null);
  // Opened from a row far down the table: bring the panel into view.
  useEffect(() => panel.current?.scrollIntoView({ block: 'nearest' }), []);
  return (
    <section ref={panel} class="card delivery-detail" aria-label={`Delivery ${delivery.id}`}>
      <div class="page-head">
        <h3>
          <StatusBadge status={delivery.status} /> <span class="mono">{delivery.eventType}</span>
        </h3>
        <div class="actions">
          {enabled && RETRYABLE.has(delivery.status) ? (
            <button type="button" class="primary" disabled={busy} onClick={onRetry}>
              {delivery.status === 'succeeded' ? 'Resend' : 'Retry now'}
            </button>
          ) : null}
          <button type="button" onClick={onClose}>
            Close
          </button>
        </div>
      </div>
      <p class="hint">{STATUS_MEANING[delivery.status]}</p>
      <dl class="facts">
        <div>
          <dt>Event</dt>
          <dd class="mono">
            <Link to={{ name: 'events', eventId: delivery.eventId }}>{delivery.eventId}</Link>
          </dd>
        </div>
        <div>
          <dt>Delivery</dt>
          <dd class="mono">{delivery.id}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>
            <Time iso={delivery.createdAt} />
          </dd>
        </div>
        <div>
          <dt>Next attempt</dt>
          <dd>
            <Time iso={delivery.nextAttemptAt} fallback="none scheduled" />
          </dd>
        </div>
      </dl>
      <h4>Envelope as sent</h4>
      <ErrorMessage error={envelope.error} context="The event could not be loaded" />
      {envelope.data ? (
        <pre class="body envelope" aria-label="Envelope as sent">
          {visibleText(JSON.stringify(envelope.data, null, 2))}
        </pre>
      ) : envelope.loading ? (
        <p>Loading…</p>
      ) : null}
      <h4>Attempts ({delivery.attempts.length})</h4>
      <AttemptList attempts={delivery.attempts} />
    </section>
  );
}
