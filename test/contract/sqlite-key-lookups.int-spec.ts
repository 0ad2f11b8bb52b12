import { TypeormDeliveryRepository } from '../../libs/adapters/sql/src/event-webhooks/typeorm-delivery.repository';
import { TypeormEventFeedRepository } from '../../libs/adapters/sql/src/event-webhooks/typeorm-event-feed.repository';
import { TypeormEventRepository } from '../../libs/adapters/sql/src/event-webhooks/typeorm-event.repository';
import { TypeormSendRepository } from '../../libs/adapters/sql/src/send-status/typeorm-send.repository';
import { TypeormDatabase } from '../../libs/adapters/sql/src/typeorm-database';
import { newId } from '../../libs/kernel/src';
import { openTestDatabase, TestDatabase } from '../support/databases';

/**
 * Statements that look rows up by a list of keys read those rows by the key on SQLite, however long
 * the list: without statistics SQLite took an index on a status or an account instead, from ten ids
 * on, and so read every waiting delivery to claim thirty (or every send of an account to answer a
 * batch of status lookups).
 */
describe('lookups by a list of keys on SQLite', () => {
  let database: TestDatabase;
  let db: TypeormDatabase;
  const statements: Array<{ sql: string; params: unknown[] }> = [];

  beforeAll(async () => {
    database = await openTestDatabase('sqlite');
    db = database.db;
  });
  afterAll(() => database.drop());
  beforeEach(() => {
    statements.length = 0;
    const exec = db.exec.bind(db);
    jest.spyOn(db, 'exec').mockImplementation((sql, params) => {
      statements.push({ sql, params: params ?? [] });
      return exec(sql, params);
    });
  });
  afterEach(() => jest.restoreAllMocks());

  /** The plan's lines for the statements that name a list of 30 keys. */
  const plansOfKeyLists = async () => {
    const lists = statements.filter((s) => /IN \((\?, ){29}\?\)/.test(s.sql));
    expect(lists.length).toBeGreaterThan(0);
    jest.restoreAllMocks();
    return Promise.all(lists.map(async (s) => (await db.query<{ detail: string }>(`EXPLAIN QUERY PLAN ${s.sql}`, s.params)).map((row) => row.detail)));
  };

  it('claims deliveries by their ids', async () => {
    const now = new Date('2025-11-22T02:00:00.000Z');
    await new TypeormDeliveryRepository(db).claimMany(
      Array.from({ length: 30 }, () => ({ id: newId('del'), seq: 0 })),
      now,
      new Date(now.getTime() + 40_000),
      'token',
    );
    // The claim returns each claimed row's body, read by its event's key, and its webhook's version
    // and pause, each read by the webhook's key.
    expect(await plansOfKeyLists()).toEqual([
      [
        'SEARCH deliveries USING INDEX sqlite_autoindex_deliveries_1 (id=?)',
        'CORRELATED SCALAR SUBQUERY 1',
        'SEARCH e USING INDEX sqlite_autoindex_events_1 (id=? AND account_id=?)',
        'CORRELATED SCALAR SUBQUERY 2',
        'SEARCH w USING INDEX sqlite_autoindex_webhooks_1 (id=?)',
        'CORRELATED SCALAR SUBQUERY 3',
        'SEARCH w USING INDEX sqlite_autoindex_webhooks_1 (id=?)',
      ],
    ]);
  });

  it('postpones deliveries by their ids', async () => {
    const at = new Date('2025-11-22T02:00:00.000Z');
    await new TypeormDeliveryRepository(db).postpone(Array.from({ length: 30 }, () => ({ id: newId('del'), seq: 0, at })));
    // A backlog behind a stalled receiver goes back to the queue in batches of hundreds, each read by the key.
    expect(await plansOfKeyLists()).toEqual([['SEARCH deliveries USING INDEX sqlite_autoindex_deliveries_1 (id=?)']]);
  });

  it('answers a batch of send status lookups by the sends ids', async () => {
    await new TypeormSendRepository(db).findForAccounts(Array.from({ length: 30 }, (_, i) => ({ accountId: 1 + (i % 3), id: newId('msg') })));
    const [plan] = await plansOfKeyLists();
    expect(plan[0]).toMatch(/^SEARCH s USING INDEX uq_sends_id \(id=\?\)/);
  });

  it('reads a page of the event feed by the ids of its events', async () => {
    const accountId = 7;
    const created = 1732240800;
    await new TypeormEventRepository(db).insertNew(
      Array.from({ length: 30 }, (_, i) => ({
        id: newId('evt'),
        accountId,
        type: 'email.delivered',
        created: created + i,
        receivedAt: new Date(created * 1000),
        bodies: { v3: '{}', v2: '{}' },
      })),
    );
    statements.length = 0;
    expect(await new TypeormEventFeedRepository(db).page({ accountId, types: [], limit: 30 })).toHaveLength(30);
    const [plan] = await plansOfKeyLists();
    expect(plan[0]).toMatch(/^SEARCH events USING INDEX sqlite_autoindex_events_1 \(id=\?/);
  });
});
