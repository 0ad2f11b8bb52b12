import type { Delivery } from '../api/types';
import { StatusBadge } from '../components/StatusBadge';
import { Time } from '../components/Time';
import { AttemptList } from './AttemptList';

const STATUS_MEANING: Record<Delivery['status'], string> = {
  pending: 'Waiting for its first attempt.',
  retrying: 'An attempt failed; the next one is scheduled.',
  succeeded: 'The endpoint answered 2xx.',
  failed: 'Every attempt of the retry schedule failed.',
  skipped: 'The webhook was disabled before it was delivered. Recover or retry it.',
  cancelled: 'The webhook was deleted.',
};

/** One delivery: its event, status and schedule; its attempts on demand; retry. */
export function DeliveryItem({ delivery, busy, onRetry }: { delivery: Delivery; busy: boolean; onRetry: () => void }) {
  const n = delivery.attempts.length;
  return (
    <li class="card delivery" aria-label={`Delivery of ${delivery.eventType}, ${delivery.status}`}>
      <div class="delivery-head">
        <StatusBadge status={delivery.status} />
        <span class="mono">{delivery.eventType}</span>
        <Time iso={delivery.createdAt} />
      </div>
      <p class="hint">{STATUS_MEANING[delivery.status]}</p>
      <dl class="facts">
        <div>
          <dt>Event</dt>
          <dd class="mono">{delivery.eventId}</dd>
        </div>
        <div>
          <dt>Attempts</dt>
          <dd>{n}</dd>
        </div>
        {delivery.nextAttemptAt ? (
          <div>
            <dt>Next attempt</dt>
            <dd>
              <Time iso={delivery.nextAttemptAt} />
            </dd>
          </div>
        ) : null}
      </dl>
      <details>
        <summary>
          {n === 0 ? 'No attempts yet' : `Show ${n} attempt${n === 1 ? '' : 's'}`}
          <span class="visually-hidden"> of delivery {delivery.id}</span>
        </summary>
        <AttemptList attempts={delivery.attempts} />
      </details>
      <div class="actions">
        <button type="button" disabled={busy} onClick={onRetry} aria-label={`Retry delivery of ${delivery.eventType} ${delivery.eventId}`}>
          Retry now
        </button>
      </div>
    </li>
  );
}
