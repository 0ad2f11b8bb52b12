import type { Delivery } from '../api/types';
import { StatusBadge } from '../components/StatusBadge';
import { Time } from '../components/Time';
import { AttemptOutcome } from './AttemptList';

/**
 * One line per delivery: status, event type, event id, attempts, last HTTP status, time; a row opens its
 * detail. The event id is the button (for keyboards and screen readers); a click anywhere on the row
 * does the same, since on a narrow screen that column may be scrolled out of view.
 */
export function DeliveryTable({ deliveries, selectedId, onSelect }: { deliveries: Delivery[]; selectedId?: string; onSelect: (delivery: Delivery) => void }) {
  return (
    <div class="table-wrap">
      <table class="dense" aria-label="Deliveries, newest first">
        <thead>
          <tr>
            <th scope="col">Status</th>
            <th scope="col">Event type</th>
            <th scope="col">Event id</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last HTTP status</th>
            <th scope="col">Time</th>
          </tr>
        </thead>
        <tbody>
          {deliveries.map((delivery) => (
            <tr key={delivery.id} class={delivery.id === selectedId ? 'selected opens' : 'opens'} aria-selected={delivery.id === selectedId} onClick={() => onSelect(delivery)}>
              <td>
                <StatusBadge status={delivery.status} />
              </td>
              <td class="mono">{delivery.eventType}</td>
              <td class="mono">
                <button type="button" class="link" onClick={(e) => (e.stopPropagation(), onSelect(delivery))} aria-label={`Details of delivery ${delivery.eventType} ${delivery.eventId}`}>
                  {delivery.eventId}
                </button>
              </td>
              <td>{delivery.attempts.length}</td>
              <td>
                <AttemptOutcome attempt={delivery.attempts[delivery.attempts.length - 1]} />
              </td>
              <td>
                <Time iso={delivery.createdAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
