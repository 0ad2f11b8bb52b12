import { EventFeedRepository, FeedEvent, FeedPageQuery } from '../event-feed/event-feed.repository';

/** The feed over events held in memory, in the adapter's order and with its rules. */
export class InMemoryEventFeedRepository extends EventFeedRepository {
  private readonly events: Array<FeedEvent & { accountId: number }> = [];

  add(accountId: number, ...events: FeedEvent[]): void {
    this.events.push(...events.map((event) => ({ ...structuredClone(event), accountId })));
  }

  async page({ accountId, types, since, after, limit }: FeedPageQuery): Promise<FeedEvent[]> {
    return this.events
      .filter((e) => e.accountId === accountId && hasEnvelope(e))
      .filter((e) => types.length === 0 || types.includes(e.type))
      .filter((e) => since === undefined || e.created >= since)
      .filter((e) => !after || e.created < after.created || (e.created === after.created && e.id < after.id))
      .sort((a, b) => b.created - a.created || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .slice(0, limit)
      .map(({ accountId: _, ...event }) => structuredClone(event));
  }

  async find(accountId: number, id: string): Promise<FeedEvent | null> {
    const found = this.events.find((e) => e.accountId === accountId && e.id === id && hasEnvelope(e));
    if (!found) return null;
    const { accountId: _, ...event } = found;
    return structuredClone(event);
  }
}

const hasEnvelope = (event: FeedEvent) => event.bodies.v3 !== undefined || event.bodies.v2 !== undefined;
