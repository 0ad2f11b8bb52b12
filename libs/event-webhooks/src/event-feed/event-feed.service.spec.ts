import { EventCatalog } from '../catalog/event-catalog';
import { serializeEnvelope } from '../intake/envelope';
import { InMemoryEventFeedRepository } from '../testing/in-memory-event-feed.repository';
import type { ApiFamily } from '../webhooks/webhook';
import { FeedEvent } from './event-feed.repository';
import { EventFeedService } from './event-feed.service';
import { decodeFeedCursor, encodeFeedCursor } from './feed-cursor';

const acme = 42;
const other = 7;
const T0 = 1_732_238_400; // 2024-11-22T01:20:00Z

function storedEvent(id: string, type: string, created: number, families: ApiFamily[] = ['v3']): FeedEvent {
  const source = { id, type, created, account: { id: acme, name: 'Acme' }, data: { n: id, nested: { someKey: 1 } } };
  return { id, type, created, bodies: Object.fromEntries(families.map((family) => [family, serializeEnvelope(source, family)])) };
}

describe(EventFeedService.name, () => {
  let feed: InMemoryEventFeedRepository;
  let sut: EventFeedService;

  beforeEach(() => {
    feed = new InMemoryEventFeedRepository();
    sut = new EventFeedService(feed, new EventCatalog());
  });

  const ids = (page: { events: Array<Record<string, unknown>> }) => page.events.map((e) => e.id);

  it('lists newest first by created, then id, 20 by default, only the caller account', async () => {
    feed.add(acme, ...Array.from({ length: 25 }, (_, i) => storedEvent(`evt_${String(i).padStart(2, '0')}`, 'email.delivered', T0 + Math.floor(i / 2))));
    feed.add(other, storedEvent('evt_foreign', 'email.delivered', T0 + 100));

    const page = await sut.list(acme, 'v3', {});
    expect(page.events).toHaveLength(20);
    expect(ids(page).slice(0, 4)).toEqual(['evt_24', 'evt_23', 'evt_22', 'evt_21']);
    expect(ids(page)).not.toContain('evt_foreign');
    expect(page.nextCursor).toEqual(expect.any(String));
  });

  it('pages with a stable cursor: events arriving meanwhile neither repeat nor shift the next page', async () => {
    feed.add(acme, ...Array.from({ length: 5 }, (_, i) => storedEvent(`evt_${i}`, 'email.delivered', T0 + i)));
    const first = await sut.list(acme, 'v3', { limit: 2 });
    expect(ids(first)).toEqual(['evt_4', 'evt_3']);

    feed.add(acme, storedEvent('evt_new', 'email.delivered', T0 + 10), storedEvent('evt_same_second', 'email.delivered', T0 + 3));
    const second = await sut.list(acme, 'v3', { limit: 2, cursor: first.nextCursor! });
    expect(ids(second)).toEqual(['evt_2', 'evt_1']);
    const last = await sut.list(acme, 'v3', { limit: 2, cursor: second.nextCursor! });
    expect(ids(last)).toEqual(['evt_0']);
    expect(last.nextCursor).toBeNull();
  });

  it('filters by one or several comma-separated types and refuses an unknown type', async () => {
    feed.add(acme, storedEvent('evt_a', 'email.delivered', T0), storedEvent('evt_b', 'email.bounced', T0 + 1), storedEvent('evt_c', 'sms.sent', T0 + 2));
    expect(ids(await sut.list(acme, 'v3', { type: 'email.bounced' }))).toEqual(['evt_b']);
    expect(ids(await sut.list(acme, 'v3', { type: 'email.delivered, sms.sent,email.delivered' }))).toEqual(['evt_c', 'evt_a']);
    await expect(sut.list(acme, 'v3', { type: 'email.delivered,email.nope' })).rejects.toMatchObject({ code: 'invalid_parameter', message: expect.stringContaining('email.nope') });
    await expect(sut.list(acme, 'v3', { type: '' })).rejects.toMatchObject({ code: 'invalid_parameter' });
  });

  it('takes since as an inclusive ISO 8601 bound on created, and refuses anything else', async () => {
    feed.add(acme, storedEvent('evt_before', 'email.delivered', T0 - 1), storedEvent('evt_at', 'email.delivered', T0), storedEvent('evt_after', 'email.delivered', T0 + 1));
    expect(ids(await sut.list(acme, 'v3', { since: '2024-11-22T01:20:00Z' }))).toEqual(['evt_after', 'evt_at']);
    expect(ids(await sut.list(acme, 'v3', { since: '2024-11-22T02:20:00+01:00' }))).toEqual(['evt_after', 'evt_at']);
    expect(ids(await sut.list(acme, 'v3', { since: '2024-11-22T01:20:00.500Z' }))).toEqual(['evt_after']);
    expect(ids(await sut.list(acme, 'v3', { since: '2024-11-22' }))).toEqual(['evt_after', 'evt_at', 'evt_before']);
    for (const since of ['yesterday', '2024-11-22T01:20:00', '2024-13-40T01:20:00Z']) {
      await expect(sut.list(acme, 'v3', { since })).rejects.toMatchObject({ code: 'invalid_parameter', message: expect.stringContaining('since') });
    }
  });

  it('refuses a limit outside 1 to 100 and a cursor it did not issue', async () => {
    for (const limit of [0, 101, 1.5, Number.NaN]) {
      await expect(sut.list(acme, 'v3', { limit })).rejects.toMatchObject({ code: 'invalid_parameter', message: expect.stringContaining('limit') });
    }
    expect((await sut.list(acme, 'v3', { limit: 100 })).events).toEqual([]);
    for (const cursor of ['', 'nonsense', Buffer.from('12:wh_1').toString('base64url'), 'x'.repeat(500)]) {
      await expect(sut.list(acme, 'v3', { cursor })).rejects.toMatchObject({ code: 'invalid_parameter', message: expect.stringContaining('cursor') });
    }
  });

  it("gives each family its own envelope, derived from the other family's when only that one was stored, never renamed", async () => {
    feed.add(acme, storedEvent('evt_v3', 'email.delivered', T0, ['v3']), storedEvent('evt_v2', 'email.delivered', T0 + 1, ['v2']));
    const v2 = await sut.list(acme, 'v2', {});
    expect(v2.events.map((e) => e.apiVersion)).toEqual(['v2', 'v2']);
    const derived = await sut.get(acme, 'v2', 'evt_v3');
    expect(JSON.stringify(derived)).toBe(serializeEnvelope({ id: 'evt_v3', type: 'email.delivered', created: T0, account: { id: acme, name: 'Acme' }, data: { n: 'evt_v3', nested: { someKey: 1 } } }, 'v2'));
    expect(await sut.get(acme, 'v3', 'evt_v2')).toMatchObject({ id: 'evt_v2', apiVersion: 'v3', data: { nested: { someKey: 1 } } });
  });

  it("answers not_found for an unknown id, another account's event, an event stored without envelope and a malformed id", async () => {
    feed.add(acme, storedEvent('evt_mine', 'email.delivered', T0), storedEvent('evt_bare', 'email.delivered', T0, []));
    feed.add(other, storedEvent('evt_theirs', 'email.delivered', T0));
    expect(await sut.get(acme, 'v3', 'evt_mine')).toMatchObject({ id: 'evt_mine', apiVersion: 'v3' });
    for (const id of ['evt_unknown', 'evt_theirs', 'evt_bare', 'wh_1', '../x']) {
      await expect(sut.get(acme, 'v3', id)).rejects.toMatchObject({ code: 'not_found' });
    }
  });

  it('encodes cursors as opaque positions that decode to the same place', () => {
    const position = { created: T0, id: 'evt_order-1001_x' };
    expect(encodeFeedCursor(position)).not.toContain('evt_');
    expect(decodeFeedCursor(encodeFeedCursor(position))).toEqual(position);
  });
});
