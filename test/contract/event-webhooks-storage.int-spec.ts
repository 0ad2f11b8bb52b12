import { randomUUID } from 'node:crypto';
import { Delivery, NewDelivery, OperationalEvents, StoredEvent, Webhook } from '../../libs/event-webhooks/src';
import { AttemptRecorder } from '../../libs/event-webhooks/src/deliveries/attempt-recorder';
import { DeliveryObserver } from '../../libs/event-webhooks/src/deliveries/delivery-observer';
import { EventWebhooksSettings } from '../../libs/event-webhooks/src/event-webhooks.settings';
import { TypeormUnitOfWork } from '../../libs/adapters/sql/src/typeorm-unit-of-work';
import { TypeormDeliveryRepository } from '../../libs/adapters/sql/src/event-webhooks/typeorm-delivery.repository';
import { TypeormEventRepository } from '../../libs/adapters/sql/src/event-webhooks/typeorm-event.repository';
import { TypeormWebhookRepository } from '../../libs/adapters/sql/src/event-webhooks/typeorm-webhook.repository';
import { TypeormWebhookStatsRepository } from '../../libs/adapters/sql/src/event-webhooks/typeorm-webhook-stats.repository';
import { TypeormDatabase } from '../../libs/adapters/sql/src/typeorm-database';
import { RetryDeliveriesCancelledByTally1732800000100 } from '../../libs/adapters/sql/src/migrations/1732800000100-retry-deliveries-cancelled-by-tally';
import { attemptsCreatedBetweenSql } from '../../libs/adapters/sql/src/event-webhooks/typeorm-webhook-stats.repository';
import { AttemptsStatsIndex1733300000000 } from '../../libs/adapters/sql/src/migrations/1733300000000-attempts-stats-index';
import { TypeormAccountRepository } from '../../libs/adapters/sql/src/accounts/typeorm-account.repository';
import { Clock, newId, WorkQueue } from '../../libs/kernel/src';
import { deliveryRow, eventRow, webhookRow } from './event-webhooks-rows';
import { openTestDatabase, TestDatabase } from '../support/databases';
import { PROFILES, profileAvailable } from '../support/test-app';

/**
 * The event-webhooks repositories on each storage engine: what the domain relies on being atomic
 * (the failure counter, the claim, the webhook limit, a repeated event id) under concurrent
 * transactions, and the semantics of each conditional statement. On MySQL the concurrent side
 * uses a second pool, like a second process; SQLite storage is one connection per process.
 */
describe.each(PROFILES)('event-webhooks storage (%s)', (profile) => {
  let database: TestDatabase;
  let dbs: TypeormDatabase[];
  let skip = false;
  const now = new Date('2025-11-22T02:00:00.000Z');

  beforeAll(async () => {
    skip = !(await profileAvailable(profile));
    if (skip) return;
    database = await openTestDatabase(profile === 'sqlite' ? 'sqlite' : 'mysql');
    dbs = profile === 'sqlite' ? [database.db] : [database.db, await database.connect()];
  });
  afterAll(async () => {
    if (!skip) await database.drop();
  });

  /** Spreads concurrent work over the connections, each piece in its own transaction. */
  const concurrently = <T>(n: number, work: (db: TypeormDatabase, i: number) => Promise<T>) =>
    Promise.all(Array.from({ length: n }, (_, i) => dbs[i % dbs.length].transaction(() => work(dbs[i % dbs.length], i))));

  let accountId = 0;
  /** A new account: webhook creation takes its row lock on MySQL. */
  const newAccount = async () => (accountId = (await new TypeormAccountRepository(database.db).create('Acme', now)).id);
  const webhook = (overrides: Partial<Webhook> = {}): Webhook => webhookRow(accountId, now, { sealedSecret: 'v1:sealed', ...overrides });
  const event = (accountId: number, id?: string): StoredEvent => eventRow(accountId, now, 1732238400, id);
  const delivery = (w: Webhook, eventId: string, overrides: Partial<NewDelivery> = {}): NewDelivery => deliveryRow(w, { id: eventId, type: 'email.delivered' }, now, overrides);
  const stored = async (w: Webhook, overrides: Partial<NewDelivery> = {}): Promise<NewDelivery> => {
    const e = event(w.accountId);
    await new TypeormEventRepository(database.db).insertNew([e]);
    const d = delivery(w, e.id, overrides);
    await new TypeormDeliveryRepository(database.db).insertMany([d]);
    return d;
  };
  const fresh = async () => {
    await newAccount();
    const w = webhook();
    expect(await new TypeormWebhookRepository(database.db).insertWithinLimit(w, 20)).toBe(true);
    return w;
  };

  it('reads back what it stores', async () => {
    if (skip) return;
    const webhooks = new TypeormWebhookRepository(database.db);
    await newAccount();
    const w = webhook({ description: 'CRM — ünïcödé', events: ['email.bounced', 'sms.sent'], apiVersion: 'v2' });
    await webhooks.insertWithinLimit(w, 20);
    expect(await webhooks.findForAccount(w.accountId, w.id)).toEqual(w);
    expect(await webhooks.findForAccount(w.accountId + 1, w.id)).toBeNull();
    expect(await webhooks.listForAccounts([w.accountId, 424242])).toEqual([w]);

    const d = await stored(w, { apiVersion: 'v2' });
    const deliveries = new TypeormDeliveryRepository(database.db);
    const [job] = await deliveries.findForDispatch([d.id, 'del_missing']);
    expect(job.delivery).toEqual({ ...d, claimedUntil: null });
    expect(job.webhookVersion).toBe(w.updatedAt.getTime());
    const won = await deliveries.claimMany([{ id: d.id, seq: 0 }], now, new Date(now.getTime() + 60_000), 'token');
    expect(won.get(d.id)).toEqual({
      delivery: { ...d, claimedUntil: new Date(now.getTime() + 60_000) },
      body: `{"id":"${d.eventId}","apiVersion":"v2"}`,
      webhookVersion: w.updatedAt.getTime(),
      webhookPausedUntil: null,
    });
    // a webhook gone since: the claim says so (no version), whatever a dispatcher kept in memory
    await database.db.exec('DELETE FROM webhooks WHERE id = ?', [w.id]);
    await deliveries.releaseClaim(d.id, 'token', now);
    expect((await deliveries.claimMany([{ id: d.id, seq: 0 }], now, new Date(now.getTime() + 60_000), 'again')).get(d.id)?.webhookVersion).toBeNull();
  });

  it('counts failures atomically under concurrent transactions, a success restarting the count', async () => {
    if (skip) return;
    const w = await fresh();
    const tally = (db: TypeormDatabase) => db.transaction(() => new TypeormWebhookRepository(db).tallyAttempts([{ webhookId: w.id, failures: 2, reset: false }]));
    const counts = await concurrently(20, tally);
    expect(counts.map((c) => c.get(w.id)!.consecutiveFailures).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => 2 * (i + 1)));
    const webhooks = new TypeormWebhookRepository(database.db);
    expect((await webhooks.findById(w.id))!.consecutiveFailures).toBe(40);
    expect(await webhooks.tallyAttempts([{ webhookId: 'wh_missing', failures: 1, reset: false }])).toEqual(new Map());
    expect(await webhooks.tallyAttempts([{ webhookId: w.id, failures: 3, reset: true }])).toEqual(new Map([[w.id, { consecutiveFailures: 3, state: 'enabled' }]]));
    expect(await webhooks.tallyAttempts([{ webhookId: w.id, failures: 0, reset: true }])).toEqual(new Map([[w.id, { consecutiveFailures: 0, state: 'enabled' }]]));
    expect((await webhooks.findById(w.id))!.consecutiveFailures).toBe(0);
  });

  it('lets exactly one of many concurrent claims win, until the lease runs out', async () => {
    if (skip) return;
    const w = await fresh();
    const d = await stored(w);
    const lease = new Date(now.getTime() + 60_000);
    const other = await stored(w);
    const wins = await concurrently(20, (db) => new TypeormDeliveryRepository(db).claimMany([{ id: d.id, seq: 0 }], now, lease, randomUUID()));
    expect(wins.filter((won) => won.has(d.id))).toHaveLength(1);
    expect(wins.find((won) => won.has(d.id))!.get(d.id)).toEqual({
      delivery: { ...d, claimedUntil: lease },
      body: `{"id":"${d.eventId}","apiVersion":"v3"}`,
      webhookVersion: w.updatedAt.getTime(),
      webhookPausedUntil: null,
    });

    const deliveries = new TypeormDeliveryRepository(database.db);
    const claim = (seq: number, at: Date) => deliveries.claimMany([{ id: d.id, seq }], at, new Date(at.getTime() + 60_000), randomUUID());
    expect((await claim(0, new Date(lease.getTime() - 1))).size).toBe(0);
    expect((await claim(0, lease)).has(d.id)).toBe(true);
    expect((await claim(1, new Date(lease.getTime() + 60_000))).size).toBe(0);
    // one statement claims many, each at its own seq
    const both = await deliveries.claimMany([{ id: other.id, seq: 0 }, { id: d.id, seq: 0 }], now, lease, randomUUID());
    expect([...both.keys()]).toEqual([other.id]);
    // a delivery without its event has no body to send: it is never won
    const orphan = await stored(w);
    await database.db.exec('DELETE FROM events WHERE account_id = ? AND id = ?', [orphan.accountId, orphan.eventId]);
    expect((await deliveries.claimMany([{ id: orphan.id, seq: 0 }], now, lease, randomUUID())).size).toBe(0);
  });

  it('records an attempt only for the holder of the claim, bumping seq and releasing it', async () => {
    if (skip) return;
    const w = await fresh();
    const d = await stored(w);
    const deliveries = new TypeormDeliveryRepository(database.db);
    const token = randomUUID();
    await deliveries.claimMany([{ id: d.id, seq: 0 }], now, new Date(now.getTime() + 60_000), token);
    const attempt = { at: now, durationMs: 12, httpStatus: 500, error: null, responseBody: 'nope ✗', requestHeaders: { 'x-service-event-id': d.eventId } };
    const outcome = { status: 'retrying' as const, nextAttemptAt: new Date(now.getTime() + 10_000), retryStep: 1 };

    expect(await deliveries.heldClaims([{ id: d.id, token: 'someone-else', seq: 0 }])).toEqual(new Map());
    expect(await deliveries.heldClaims([{ id: d.id, token, seq: 0 }])).toEqual(new Map([[d.id, 'pending']]));
    const record = { deliveryId: d.id, webhookId: w.id, accountId: w.accountId, attemptNo: 1, deliveryCreatedAt: d.createdAt, formerStatus: 'pending' as const, attempt, outcome };
    await deliveries.recordAttempts([record]);
    expect(await deliveries.heldClaims([{ id: d.id, token, seq: 0 }])).toEqual(new Map());
    const after = (await deliveries.findForWebhook(w.id, d.id))!;
    expect(after).toMatchObject({ status: 'retrying', attempts: [attempt], nextAttemptAt: outcome.nextAttemptAt, retryStep: 1, seq: 1, claimedUntil: null, attemptCount: 1 });
  });

  it('holds a claim only while both its token and the seq it was taken at are the row\'s (issue 12, race 7a)', async () => {
    if (skip) return;
    const w = await fresh();
    const deliveries = new TypeormDeliveryRepository(database.db);
    const d = await stored(w);
    const token = randomUUID();
    await deliveries.claimMany([{ id: d.id, seq: 0 }], now, new Date(now.getTime() + 60_000), token);
    expect(await deliveries.heldClaims([{ id: d.id, token, seq: 0 }])).toEqual(new Map([[d.id, 'pending']]));
    // The lease ran out and a manual retry rescheduled the delivery (seq 0 -> 1), token left in place.
    const later = new Date(now.getTime() + 60_001);
    expect(await deliveries.scheduleNow(d.id, later, 3)).toEqual({ id: d.id, seq: 1, nextAttemptAt: later });
    expect(await database.db.transaction(() => deliveries.heldClaims([{ id: d.id, token, seq: 0 }]))).toEqual(new Map());
    expect((await deliveries.findForWebhook(w.id, d.id))!).toMatchObject({ status: 'pending', seq: 1, attempts: [], nextAttemptAt: later });

    // The same through the recorder: the late attempt is dropped and the retry's item stays the live one.
    const e = await stored(w);
    const queued: Array<{ seq: unknown }> = [];
    const queue = { enqueue: async (items: Array<{ payload: { seq: unknown } }>) => void queued.push(...items.map((i) => ({ seq: i.payload.seq }))) } as unknown as WorkQueue;
    const clock = { now: () => later, nowMs: () => later.getTime() } as unknown as Clock;
    const settings = { retryScheduleMs: [10_000, 60_000], disableAfter: 10 } as unknown as EventWebhooksSettings;
    const observer = { disabled: () => undefined } as unknown as DeliveryObserver;
    // the attempt is dropped before any counter moves: no operational event can be due
    const notices = {} as OperationalEvents;
    const stats = new TypeormWebhookStatsRepository(database.db);
    const recorder = new AttemptRecorder(deliveries, new TypeormWebhookRepository(database.db), queue, new TypeormUnitOfWork(database.db), clock, settings, observer, notices, stats);
    const [job] = await deliveries.findForDispatch([e.id]);
    await deliveries.claimMany([{ id: e.id, seq: 0 }], now, new Date(now.getTime() + 60_000), token);
    expect(await deliveries.scheduleNow(e.id, later, 2)).toEqual({ id: e.id, seq: 1, nextAttemptAt: later });
    const attempt = { at: later, durationMs: 5, httpStatus: 500, error: null, responseBody: '', requestHeaders: {} };
    expect(await recorder.record({ delivery: job.delivery, claimToken: token, attempt, success: false })).toBeNull();
    expect((await deliveries.findForWebhook(w.id, e.id))!).toMatchObject({ status: 'pending', seq: 1, attempts: [], attemptCount: 0, nextAttemptAt: later });
    expect(queued).toEqual([]);
    expect((await new TypeormWebhookRepository(database.db).findById(w.id))!.consecutiveFailures).toBe(0);
    // The retry's item (seq 1) still claims it.
    expect((await deliveries.claimMany([{ id: e.id, seq: 1 }], later, new Date(later.getTime() + 60_000), randomUUID())).has(e.id)).toBe(true);
  });

  it('re-queues only stale, unclaimed waiting deliveries, and fails an abandoned one', async () => {
    if (skip) return;
    const w = await fresh();
    const deliveries = new TypeormDeliveryRepository(database.db);
    const old = new Date(now.getTime() - 600_000);
    const stale = await stored(w, { nextAttemptAt: old });
    const claimed = await stored(w, { nextAttemptAt: old });
    await deliveries.claimMany([{ id: claimed.id, seq: 0 }], old, new Date(now.getTime() + 60_000), randomUUID());
    const fresh_ = await stored(w, { nextAttemptAt: now });
    await stored(w, { status: 'succeeded', nextAttemptAt: null });
    const found = await database.db.transaction(() => deliveries.rescheduleStale(new Date(now.getTime() - 120_000), now, 10));
    expect(found).toEqual([{ id: stale.id, seq: 1, nextAttemptAt: now }]);
    expect(await database.db.transaction(() => deliveries.rescheduleStale(new Date(now.getTime() - 120_000), now, 10))).toEqual([]);

    expect(await deliveries.abandon(fresh_.id)).toBe(true);
    expect(await deliveries.abandon(fresh_.id)).toBe(false);
    expect(await deliveries.findForWebhook(w.id, fresh_.id)).toMatchObject({ status: 'failed', nextAttemptAt: null, seq: 1 });
  });

  it('stores a repeated event id once, even from concurrent transactions, per account', async () => {
    if (skip) return;
    await newAccount();
    const inserted = await concurrently(10, (db) => new TypeormEventRepository(db).insertNew([event(accountId, 'evt_shared'), event(accountId)]));
    expect(inserted.filter((keys) => keys.has(`${accountId}/evt_shared`))).toHaveLength(1);
    expect(inserted.every((keys) => keys.size >= 1)).toBe(true);
    const otherAccount = await new TypeormEventRepository(database.db).insertNew([event(accountId + 1, 'evt_shared')]);
    expect(otherAccount).toEqual(new Set([`${accountId + 1}/evt_shared`]));
  });

  it('never lets concurrent creates pass the per-account limit', async () => {
    if (skip) return;
    await newAccount();
    const results = await concurrently(30, (db) => new TypeormWebhookRepository(db).insertWithinLimit(webhook(), 20));
    expect(results.filter(Boolean)).toHaveLength(20);
    expect(await new TypeormWebhookRepository(database.db).listForAccount(accountId)).toHaveLength(20);
  });

  it('pages newest first by status and cursor', async () => {
    if (skip) return;
    const w = await fresh();
    const made: NewDelivery[] = [];
    for (let i = 0; i < 5; i++) made.push(await stored(w, { id: newId('del', now.getTime() + i), status: i % 2 ? 'failed' : 'succeeded' }));
    const deliveries = new TypeormDeliveryRepository(database.db);
    const ids = (rows: Delivery[]) => rows.map((r) => r.id);
    expect(ids(await deliveries.listForWebhook(w.id, { limit: 3 }))).toEqual([made[4].id, made[3].id, made[2].id]);
    expect(ids(await deliveries.listForWebhook(w.id, { limit: 3, beforeId: made[2].id }))).toEqual([made[1].id, made[0].id]);
    expect(ids(await deliveries.listForWebhook(w.id, { limit: 10, status: 'failed' }))).toEqual([made[3].id, made[1].id]);
  });

  it('reschedules, settles, skips and recovers only the rows each statement is meant for', async () => {
    if (skip) return;
    const w = await fresh();
    const deliveries = new TypeormDeliveryRepository(database.db);
    const failed = await stored(w, { status: 'failed', nextAttemptAt: null, retryStep: 3 });
    const retrying = await stored(w, { status: 'retrying', nextAttemptAt: new Date(now.getTime() + 60_000), retryStep: 2 });
    const claimed = await stored(w, { status: 'pending' });
    await deliveries.claimMany([{ id: claimed.id, seq: 0 }], now, new Date(now.getTime() + 60_000), randomUUID());

    expect(await deliveries.scheduleNow(failed.id, now, 3)).toEqual({ id: failed.id, seq: 1, nextAttemptAt: now });
    expect(await deliveries.findForWebhook(w.id, failed.id)).toMatchObject({ status: 'pending', retryStep: 3, nextAttemptAt: now });
    expect(await deliveries.scheduleNow(retrying.id, now, 3)).toEqual({ id: retrying.id, seq: 1, nextAttemptAt: now });
    expect(await deliveries.findForWebhook(w.id, retrying.id)).toMatchObject({ status: 'retrying', retryStep: 1, nextAttemptAt: now });
    expect(await deliveries.scheduleNow(claimed.id, now, 3)).toBeNull();

    expect(await deliveries.settle(claimed.id, 0, 'skipped', now)).toBe(false);
    expect(await deliveries.settle(retrying.id, 0, 'skipped', now)).toBe(false);
    expect(await deliveries.settle(retrying.id, 1, 'skipped', now)).toBe(true);

    const succeeded = await stored(w, { status: 'succeeded', nextAttemptAt: null });
    expect(await deliveries.settleWaiting(w.id, 'skipped')).toBe(2); // failed-then-rescheduled and claimed
    const old = await stored(w, { status: 'failed', nextAttemptAt: null, createdAt: new Date(now.getTime() - 3_600_000) });

    const later = new Date(now.getTime() + 120_000);
    const recovered = await database.db.transaction(() => deliveries.recover(w.id, now, '', later, 10));
    expect(recovered.map((r) => r.id).sort()).toEqual([failed.id, retrying.id, claimed.id].sort());
    for (const r of recovered) expect(await deliveries.findForWebhook(w.id, r.id)).toMatchObject({ status: 'pending', retryStep: 0, seq: r.seq, nextAttemptAt: later });
    expect((await deliveries.findForWebhook(w.id, succeeded.id))!.status).toBe('succeeded');
    expect((await deliveries.findForWebhook(w.id, old.id))!.status).toBe('failed');
  });

  it('migration: puts back to retrying the deliveries cancelled while their webhook still exists, and only those', async () => {
    if (skip) return;
    const webhooks = new TypeormWebhookRepository(database.db);
    const w = await fresh();
    const gone = await fresh();
    const lost = await stored(w, { status: 'cancelled', nextAttemptAt: null, retryStep: 1, attemptCount: 1 });
    const succeeded = await stored(w, { status: 'succeeded', nextAttemptAt: null });
    const ofDeleted = await stored(gone, { status: 'cancelled', nextAttemptAt: null });
    await webhooks.delete(gone.id);

    const before = Date.now();
    const runner = database.db.dataSource.createQueryRunner();
    try {
      await new RetryDeliveriesCancelledByTally1732800000100().up(runner);
    } finally {
      await runner.release();
    }
    const deliveries = new TypeormDeliveryRepository(database.db);
    const repaired = (await deliveries.findForWebhook(w.id, lost.id))!;
    expect(repaired).toMatchObject({ status: 'retrying', retryStep: 1 });
    expect(repaired.nextAttemptAt!.getTime()).toBeGreaterThanOrEqual(before);
    expect((await deliveries.findForWebhook(w.id, succeeded.id))!.status).toBe('succeeded');
    expect((await deliveries.findForWebhook(gone.id, ofDeleted.id))!.status).toBe('cancelled');
  });

  it("migration: the stats' index of attempts replaces the unused (webhook_id, at), and reads a part of an hour's attempts alone", async () => {
    if (skip) return;
    const indexes = async () => (await database.db.dataSource.createQueryRunner().getTable('delivery_attempts'))!.indices.map((i) => i.name).sort();
    const runner = database.db.dataSource.createQueryRunner();
    try {
      await new AttemptsStatsIndex1733300000000().down(runner);
      expect(await indexes()).toEqual(['ix_delivery_attempts_webhook_at']);
      await new AttemptsStatsIndex1733300000000().up(runner);
    } finally {
      await runner.release();
    }
    expect(await indexes()).toEqual(['ix_delivery_attempts_webhook_delivery']);
    const read = attemptsCreatedBetweenSql(database.db.dialect);
    const plan = JSON.stringify(await database.db.query(`EXPLAIN ${profile === 'sqlite' ? 'QUERY PLAN ' : ''}${read}`, ['wh_x', 'del_a', 'del_b']));
    expect(plan).toContain('ix_delivery_attempts_webhook_delivery');
    expect(plan).toMatch(profile === 'sqlite' ? /COVERING INDEX/ : /Using index/);
  });
});
