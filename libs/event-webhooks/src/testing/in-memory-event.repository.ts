import { Delivery, isWaiting } from '../deliveries/delivery';
import { eventKey, EventRepository, StoredEvent } from '../intake/event.repository';

/**
 * Events in a map. Like the SQL adapter, a purge takes an event's deliveries with it and keeps an
 * event still owed a delivery: the InMemoryDeliveryRepository built on it lends its rows.
 */
export class InMemoryEventRepository extends EventRepository {
  /** By eventKey. */
  private readonly stored = new Map<string, StoredEvent>();
  deliveriesOf: (accountId: number, eventId: string) => Delivery[] = () => [];
  deleteDeliveries: (ids: string[]) => void = () => undefined;

  async insertNew(events: StoredEvent[]) {
    const inserted = new Set<string>();
    for (const event of events) {
      const key = eventKey(event);
      if (this.stored.has(key)) continue;
      this.stored.set(key, structuredClone(event));
      inserted.add(key);
    }
    return inserted;
  }

  async deleteCreatedBefore(cutoffSeconds: number, limit: number) {
    const doomed = [...this.stored.entries()]
      .filter(([, e]) => e.created < cutoffSeconds && !this.deliveriesOf(e.accountId, e.id).some((d) => isWaiting(d.status)))
      .sort(([, a], [, b]) => a.created - b.created)
      .slice(0, limit);
    for (const [key, e] of doomed) {
      this.deleteDeliveries(this.deliveriesOf(e.accountId, e.id).map((d) => d.id));
      this.stored.delete(key);
    }
    return doomed.length;
  }

  find(accountId: number, id: string): StoredEvent | undefined {
    return this.stored.get(eventKey({ accountId, id }));
  }

  get size(): number {
    return this.stored.size;
  }
}
