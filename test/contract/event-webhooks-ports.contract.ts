import { AttemptOutcome, Delivery, DeliveryRepository, EventRepository, NewDelivery, StoredEvent, statsRowsOf, Webhook, WebhookRepository, WebhookStatsRepository } from '../../libs/event-webhooks/src';
import { newId } from '../../libs/kernel/src';
import { deliveryRow, eventRow, webhookRow } from './event-webhooks-rows';

/** The event-webhooks ports of one backend: the in-memory fakes or the SQL adapters on one database. */
export interface EventWebhooksPorts {
  webhooks: WebhookRepository;
  events: EventRepository;
  deliveries: DeliveryRepository;
  stats: WebhookStatsRepository;
  /** Runs `work` in one transaction (the fakes: at once). */
  transaction<T>(work: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

const HOUR = 3_600_000;
const T0 = new Date('2026-11-24T10:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

/**
 * What the domain relies on from each event-webhooks port, run against every implementation: the
 * in-memory fakes the unit tests use and the SQL adapters on SQLite and MariaDB. A fake that
 * answers differently from the adapters fails here, not in a unit test that trusted it.
 */
export function describeEventWebhooksPorts(name: string, open: () => Promise<EventWebhooksPorts | null>): void {
  describe(`event-webhooks ports (${name})`, () => {
    let ports: EventWebhooksPorts | null;
    let nextAccount = 1000;

    beforeAll(async () => {
      ports = await open();
    });
    afterAll(async () => {
      await ports?.close();
    });
    const p = () => ports!;
    const skip = () => ports === null;

    const webhook = (accountId: number, overrides: Partial<Webhook> = {}) => webhookRow(accountId, T0, overrides);
    const event = (accountId: number, created?: number) => eventRow(accountId, T0, created);
    const newDelivery = (w: Webhook, e: StoredEvent, overrides: Partial<NewDelivery> = {}) => deliveryRow(w, e, T0, overrides);
    /** A fresh account with one webhook. */
    const setUp = async (overrides: Partial<Webhook> = {}) => {
      const w = webhook(++nextAccount, overrides);
      expect(await p().webhooks.insertWithinLimit(w, 20)).toBe(true);
      return w;
    };
    /** An event and its delivery to `w`, stored. */
    const stored = async (w: Webhook, overrides: Partial<NewDelivery> = {}, created?: number): Promise<NewDelivery> => {
      const e = event(w.accountId, created);
      await p().events.insertNew([e]);
      const d = newDelivery(w, e, overrides);
      await p().deliveries.insertMany([d]);
      return d;
    };
    const find = async (w: Webhook, id: string): Promise<Delivery> => (await p().deliveries.findForWebhook(w.id, id))!;
    const outcome = (status: AttemptOutcome['status'], nextAttemptAt: Date | null = null, retryStep = 0): AttemptOutcome => ({ status, nextAttemptAt, retryStep });
    const attempt = (httpStatus: number) => ({ at: T0, durationMs: 12, httpStatus, error: null, responseBody: 'ok', requestHeaders: { 'content-type': 'application/json' } });
    /** Records an attempt as AttemptRecorder does: in one transaction, its claim found held (with the status it stands at), then the attempt. */
    const recordHeld = (d: NewDelivery, token: string, seq: number, made: ReturnType<typeof attempt>, result: AttemptOutcome) =>
      p().transaction(async () => {
        const held = await p().deliveries.heldClaims([{ id: d.id, token, seq }]);
        expect([...held.keys()]).toEqual([d.id]);
        const { webhookId, accountId, createdAt: deliveryCreatedAt } = d;
        await p().deliveries.recordAttempts([{ deliveryId: d.id, webhookId, accountId, attemptNo: 1, deliveryCreatedAt, formerStatus: held.get(d.id)!, attempt: made, outcome: result }]);
      });

    describe('WebhookRepository', () => {
      it('inserts within the per-account limit only, finds by account, lists oldest first', async () => {
        if (skip()) return;
        const accountId = ++nextAccount;
        const first = webhook(accountId, { id: newId('wh', T0.getTime()) });
        const second = webhook(accountId, { id: newId('wh', T0.getTime() + 1) });
        expect(await p().webhooks.insertWithinLimit(first, 2)).toBe(true);
        expect(await p().webhooks.insertWithinLimit(second, 2)).toBe(true);
        expect(await p().webhooks.insertWithinLimit(webhook(accountId), 2)).toBe(false);
        expect(await p().webhooks.insertWithinLimit(webhook(accountId + 500), 2)).toBe(true);
        expect((await p().webhooks.listForAccount(accountId)).map((w) => w.id)).toEqual([first.id, second.id]);
        expect(await p().webhooks.findForAccount(accountId, first.id)).toEqual(first);
        expect(await p().webhooks.findForAccount(accountId + 1, first.id)).toBeNull();
        expect(await p().webhooks.findById(second.id)).toEqual(second);
      });

      it('disables once, recording why; enable clears the reason and the failure counter', async () => {
        if (skip()) return;
        const w = await setUp();
        await p().transaction(() => p().webhooks.tallyAttempts([{ webhookId: w.id, failures: 3, reset: false }]));
        expect(await p().webhooks.disable(w.id, at(1), 'consecutive_failures')).toBe(true);
        expect(await p().webhooks.disable(w.id, at(2), 'manual')).toBe(false);
        expect(await p().webhooks.findById(w.id)).toMatchObject({ state: 'disabled', disabledAt: at(1), disabledReason: 'consecutive_failures', consecutiveFailures: 3 });
        await p().webhooks.enable(w.id, at(3));
        expect(await p().webhooks.findById(w.id)).toMatchObject({ state: 'enabled', disabledAt: null, disabledReason: null, consecutiveFailures: 0, updatedAt: at(3) });
      });

      it('stops the failure counter where the disable says (the threshold, when a batch counted past it)', async () => {
        if (skip()) return;
        const w = await setUp();
        await p().transaction(() => p().webhooks.tallyAttempts([{ webhookId: w.id, failures: 13, reset: false }]));
        expect(await p().webhooks.disable(w.id, at(1), 'consecutive_failures', 10)).toBe(true);
        expect(await p().webhooks.findById(w.id)).toMatchObject({ state: 'disabled', consecutiveFailures: 10 });
        expect(await p().webhooks.disable(w.id, at(2), 'consecutive_failures', 4)).toBe(false);
        expect((await p().webhooks.findById(w.id))!.consecutiveFailures).toBe(10);
      });

      it("leaves a disabled webhook's counter as it was: attempts still in flight when it was disabled do not move it", async () => {
        if (skip()) return;
        const w = await setUp();
        await p().transaction(() => p().webhooks.tallyAttempts([{ webhookId: w.id, failures: 10, reset: false }]));
        await p().webhooks.disable(w.id, at(1), 'consecutive_failures');
        for (const tally of [{ failures: 0, reset: true }, { failures: 2, reset: false }, { failures: 1, reset: true }]) {
          const counts = await p().transaction(() => p().webhooks.tallyAttempts([{ webhookId: w.id, ...tally }]));
          expect(counts.get(w.id)).toEqual({ consecutiveFailures: 10, state: 'disabled' });
        }
        expect(await p().webhooks.findById(w.id)).toMatchObject({ state: 'disabled', disabledReason: 'consecutive_failures', consecutiveFailures: 10 });
      });

      it('adds failures to the counter, restarts it after a success, and reports every webhook still there', async () => {
        if (skip()) return;
        const a = await setUp();
        const b = await setUp();
        const first = await p().transaction(() => p().webhooks.tallyAttempts([{ webhookId: a.id, failures: 2, reset: false }, { webhookId: b.id, failures: 1, reset: false }]));
        expect(first.get(a.id)).toEqual({ consecutiveFailures: 2, state: 'enabled' });
        const second = await p().transaction(() => p().webhooks.tallyAttempts([{ webhookId: a.id, failures: 1, reset: true }, { webhookId: b.id, failures: 4, reset: false }]));
        expect(second.get(a.id)).toEqual({ consecutiveFailures: 1, state: 'enabled' });
        expect(second.get(b.id)).toEqual({ consecutiveFailures: 5, state: 'enabled' });
        // A batch ending in a success restarts the counter and still reports the webhook: its
        // failures before that success are retried, not taken for attempts on a deleted webhook.
        const third = await p().transaction(() => p().webhooks.tallyAttempts([{ webhookId: a.id, failures: 0, reset: true }, { webhookId: b.id, failures: 0, reset: true }]));
        expect(Object.fromEntries(third)).toEqual({ [a.id]: { consecutiveFailures: 0, state: 'enabled' }, [b.id]: { consecutiveFailures: 0, state: 'enabled' } });
        expect((await p().webhooks.findById(a.id))!.consecutiveFailures).toBe(0);
        expect((await p().webhooks.findById(b.id))!.consecutiveFailures).toBe(0);
        const again = await p().transaction(() => p().webhooks.tallyAttempts([{ webhookId: a.id, failures: 0, reset: true }]));
        expect(again.get(a.id)).toEqual({ consecutiveFailures: 0, state: 'enabled' });
        expect((await p().transaction(() => p().webhooks.tallyAttempts([{ webhookId: 'wh_gone', failures: 1, reset: false }]))).size).toBe(0);
      });

      it('reads failure counters without a lock, and tallies a batch the same with the counters read before it in the transaction', async () => {
        if (skip()) return;
        const a = await setUp();
        const b = await setUp();
        await p().transaction(() => p().webhooks.tallyAttempts([{ webhookId: a.id, failures: 3, reset: false }]));
        expect(await p().webhooks.failureCounts([])).toEqual(new Map());
        expect(Object.fromEntries(await p().webhooks.failureCounts([a.id, b.id, 'wh_gone']))).toEqual({
          [a.id]: { consecutiveFailures: 3, state: 'enabled' },
          [b.id]: { consecutiveFailures: 0, state: 'enabled' },
        });
        // a.id and b.id end in a success, 'wh_gone' was read before and is gone: reported as absent.
        const counts = await p().transaction(async () => {
          const readBefore = await p().webhooks.failureCounts([a.id, b.id, 'wh_gone']);
          return p().webhooks.tallyAttempts(
            [
              { webhookId: a.id, failures: 0, reset: true },
              { webhookId: b.id, failures: 2, reset: true },
              { webhookId: 'wh_gone', failures: 0, reset: true },
            ],
            readBefore,
          );
        });
        expect(Object.fromEntries(counts)).toEqual({ [a.id]: { consecutiveFailures: 0, state: 'enabled' }, [b.id]: { consecutiveFailures: 2, state: 'enabled' } });
        expect((await p().webhooks.findById(a.id))!.consecutiveFailures).toBe(0);
        expect((await p().webhooks.findById(b.id))!.consecutiveFailures).toBe(2);
      });

      it("keeps a receiver's pause, extended but never shortened, for every reader of the webhook and of its deliveries", async () => {
        if (skip()) return;
        const w = await setUp();
        const d = await stored(w);
        expect((await p().webhooks.findById(w.id))!.pausedUntil).toBeNull();
        const [unpaused] = await p().deliveries.findForDispatch([d.id]);
        expect(unpaused.webhookPausedUntil).toBeNull();
        const later = new Date(T0.getTime() + 30_000);
        await p().webhooks.pauseUntil([{ webhookId: w.id, until: later }]);
        await p().webhooks.pauseUntil([{ webhookId: w.id, until: new Date(T0.getTime() + 5_000) }, { webhookId: 'wh_missing', until: later }]);
        expect((await p().webhooks.findById(w.id))!.pausedUntil).toEqual(later);
        expect((await p().webhooks.findForAccount(w.accountId, w.id))!.pausedUntil).toEqual(later);
        const [paused] = await p().deliveries.findForDispatch([d.id]);
        expect(paused.webhookPausedUntil).toEqual(later);
        const longer = new Date(T0.getTime() + 60_000);
        await p().webhooks.pauseUntil([{ webhookId: w.id, until: longer }]);
        expect((await p().webhooks.findById(w.id))!.pausedUntil).toEqual(longer);
      });

      it('replaces a secret only over the one the caller read; settings change, only those given; reads to change (lockForAccount) as findForAccount does; delete removes it once', async () => {
        if (skip()) return;
        const w = await setUp();
        // Ten rotated-out secrets sealed together take about 1,300 characters.
        const rotation = { replacing: 'sealed-1', sealedSecret: 'sealed-2', sealedPrevious: 'sealed-previous'.padEnd(2_000, '='), previousExpiresAt: at(HOUR) };
        expect(await p().webhooks.replaceSecret(w.id, rotation, at(1))).toBe(true);
        expect(await p().webhooks.replaceSecret(w.id, { ...rotation, sealedSecret: 'sealed-3' }, at(2))).toBe(false);
        expect(await p().webhooks.findById(w.id)).toMatchObject({ sealedSecret: 'sealed-2', sealedPreviousSecret: rotation.sealedPrevious, previousSecretExpiresAt: at(HOUR) });
        await p().webhooks.updateSettings(w.id, { url: 'https://other.example.com/x', events: ['email.bounced'], description: 'd', updatedAt: at(5) });
        expect(await p().webhooks.findById(w.id)).toMatchObject({ url: 'https://other.example.com/x', events: ['email.bounced'], description: 'd', updatedAt: at(5) });
        // a change writes only the settings it gives
        await p().webhooks.updateSettings(w.id, { description: null, updatedAt: at(6) });
        expect(await p().webhooks.findById(w.id)).toMatchObject({ url: 'https://other.example.com/x', events: ['email.bounced'], description: null, updatedAt: at(6) });
        await p().webhooks.updateSettings(w.id, { events: ['email.delivered'], updatedAt: at(7) });
        expect(await p().webhooks.findById(w.id)).toMatchObject({ url: 'https://other.example.com/x', events: ['email.delivered'], description: null, updatedAt: at(7) });
        const stored = await p().webhooks.findById(w.id);
        await p().transaction(async () => {
          expect(await p().webhooks.lockForAccount(w.accountId, w.id)).toEqual(stored);
          expect(await p().webhooks.lockForAccount(w.accountId + 1, w.id)).toBeNull();
        });
        expect(await p().webhooks.lockForAccount(w.accountId, w.id)).toEqual(stored);
        expect(await p().webhooks.delete(w.id)).toBe(true);
        expect(await p().webhooks.findById(w.id)).toBeNull();
        expect(await p().webhooks.delete(w.id)).toBe(false);
      });
    });

    describe('EventRepository', () => {
      it('inserts an event id once per account, and reports which it inserted', async () => {
        if (skip()) return;
        const accountId = ++nextAccount;
        const e = event(accountId);
        const sameIdElsewhere = { ...event(accountId + 1), id: e.id };
        expect(await p().events.insertNew([e])).toEqual(new Set([`${accountId}/${e.id}`]));
        const again = await p().events.insertNew([e, sameIdElsewhere]);
        expect(again).toEqual(new Set([`${accountId + 1}/${e.id}`]));
      });

      it('purges old events with their deliveries, oldest first, but keeps one still owed a delivery', async () => {
        if (skip()) return;
        const w = await setUp();
        const old = Math.floor(T0.getTime() / 1000) - 40 * 86_400;
        const settled = await stored(w, { status: 'succeeded', nextAttemptAt: null }, old);
        const owed = await stored(w, { status: 'retrying', nextAttemptAt: at(HOUR) }, old);
        const recent = await stored(w, { status: 'succeeded', nextAttemptAt: null });
        let removed = 0;
        for (let n = -1; n !== 0; removed += n) n = await p().transaction(() => p().events.deleteCreatedBefore(old + 1, 1000));
        expect(removed).toBeGreaterThanOrEqual(1);
        expect(await p().deliveries.findForWebhook(w.id, settled.id)).toBeNull();
        expect(await p().deliveries.findForWebhook(w.id, owed.id)).not.toBeNull();
        expect(await p().deliveries.findForWebhook(w.id, recent.id)).not.toBeNull();
      });
    });

    describe('DeliveryRepository', () => {
      it('lists newest first, by status, a page before an id; hands each its body of its family', async () => {
        if (skip()) return;
        const w = await setUp({ apiVersion: 'v2' });
        const a = await stored(w, { id: newId('del', T0.getTime() + 1) });
        const b = await stored(w, { id: newId('del', T0.getTime() + 2), status: 'failed', nextAttemptAt: null });
        const c = await stored(w, { id: newId('del', T0.getTime() + 3) });
        expect((await p().deliveries.listForWebhook(w.id, { limit: 10 })).map((d) => d.id)).toEqual([c.id, b.id, a.id]);
        expect((await p().deliveries.listForWebhook(w.id, { limit: 10, status: 'failed' })).map((d) => d.id)).toEqual([b.id]);
        expect((await p().deliveries.listForWebhook(w.id, { limit: 1, beforeId: c.id })).map((d) => d.id)).toEqual([b.id]);
        const [job] = await p().deliveries.findForDispatch([a.id, 'del_missing']);
        expect(job.delivery).toMatchObject({ id: a.id, status: 'pending', seq: 0, attemptCount: 0, apiVersion: 'v2', test: false });
        expect(job).not.toHaveProperty('body');
        // The body comes with the claim, in the delivery's API family.
        const won = await p().deliveries.claimMany([{ id: a.id, seq: 0 }], at(1), at(60_000), 'token');
        expect(won.get(a.id)!.body).toBe(`{"id":"${a.eventId}","apiVersion":"v2"}`);
      });

      it("lists one event's deliveries across the account's webhooks, in their order, with their attempts; never another account's", async () => {
        if (skip()) return;
        const w1 = await setUp();
        const w2 = webhook(w1.accountId, { id: newId('wh', T0.getTime() + 5) });
        expect(await p().webhooks.insertWithinLimit(w2, 20)).toBe(true);
        const e = event(w1.accountId);
        const other = event(w1.accountId);
        await p().events.insertNew([e, other]);
        const first = newDelivery(w1, e, { id: newId('del', T0.getTime() + 1) });
        const second = newDelivery(w2, e, { id: newId('del', T0.getTime() + 2) });
        await p().deliveries.insertMany([second, first, newDelivery(w1, other)]);
        await p().deliveries.claimMany([{ id: first.id, seq: 0 }], at(1), at(60_000), 'token');
        await recordHeld(first, 'token', 0, attempt(200), outcome('succeeded'));

        const listed = await p().deliveries.listForEvent(w1.accountId, e.id);
        expect(listed.map((d) => [d.id, d.webhookId])).toEqual([
          [first.id, w1.id],
          [second.id, w2.id],
        ]);
        expect(listed[0].attempts).toEqual([attempt(200)]);
        expect(listed[1].attempts).toEqual([]);
        expect(await p().deliveries.listForEvent(w1.accountId + 1, e.id)).toEqual([]);
        expect(await p().deliveries.listForEvent(w1.accountId, e.id.toUpperCase())).toEqual([]);
      });

      it('claims a due waiting delivery at its seq once while the lease lasts', async () => {
        if (skip()) return;
        const w = await setUp();
        const d = await stored(w);
        const later = await stored(w, { nextAttemptAt: at(HOUR) });
        expect((await p().deliveries.claimMany([{ id: d.id, seq: 1 }], at(1), at(60_000), 'stale-seq')).size).toBe(0);
        expect([...(await p().deliveries.claimMany([{ id: d.id, seq: 0 }, { id: later.id, seq: 0 }], at(1), at(60_000), 'first')).keys()]).toEqual([d.id]);
        expect((await p().deliveries.claimMany([{ id: d.id, seq: 0 }], at(2), at(60_000), 'second')).size).toBe(0);
        // the lease ran out: another dispatcher may take it
        expect([...(await p().deliveries.claimMany([{ id: d.id, seq: 0 }], at(60_001), at(120_000), 'third')).keys()]).toEqual([d.id]);
      });

      it("tells with each claim its webhook's pause, and takes an unused claim back, the delivery due later", async () => {
        if (skip()) return;
        const w = await setUp();
        const d = await stored(w);
        const until = at(30_000);
        await p().webhooks.pauseUntil([{ webhookId: w.id, until }]);
        const won = await p().deliveries.claimMany([{ id: d.id, seq: 0 }], at(1), at(60_000), 'token');
        expect(won.get(d.id)).toEqual({
          delivery: { ...(await find(w, d.id))!, attempts: undefined },
          body: expect.stringContaining(d.eventId),
          webhookVersion: expect.any(Number),
          webhookPausedUntil: until,
        });
        expect(await p().deliveries.releaseClaim(d.id, 'other', until)).toBe(false);
        expect(await p().deliveries.releaseClaim(d.id, 'token', until)).toBe(true);
        expect(await find(w, d.id)).toMatchObject({ claimedUntil: null, nextAttemptAt: until, seq: 0, status: 'pending' });
        expect((await p().deliveries.claimMany([{ id: d.id, seq: 0 }], at(2), at(60_000), 'early')).size).toBe(0);
        expect((await p().deliveries.claimMany([{ id: d.id, seq: 0 }], until, at(90_000), 'due')).get(d.id)?.webhookPausedUntil).toEqual(until);
      });

      it('records an attempt with its outcome: seq and count up, claim released, the attempt listed', async () => {
        if (skip()) return;
        const w = await setUp();
        const d = await stored(w);
        await p().deliveries.claimMany([{ id: d.id, seq: 0 }], at(1), at(60_000), 'token');
        await recordHeld(d, 'token', 0, attempt(500), outcome('retrying', at(10_000), 1));
        const after = await find(w, d.id);
        expect(after).toMatchObject({ status: 'retrying', nextAttemptAt: at(10_000), retryStep: 1, seq: 1, attemptCount: 1, claimedUntil: null });
        expect(after.attempts).toEqual([attempt(500)]);
        // the retry is claimable at seq 1 once due, not before
        expect((await p().deliveries.claimMany([{ id: d.id, seq: 1 }], at(5_000), at(60_000), 't2')).size).toBe(0);
        expect((await p().deliveries.claimMany([{ id: d.id, seq: 1 }], at(10_000), at(70_000), 't2')).size).toBe(1);
      });

      it('settles an unclaimed waiting delivery at its seq only', async () => {
        if (skip()) return;
        const w = await setUp();
        const d = await stored(w);
        expect(await p().deliveries.settle(d.id, 1, 'skipped', at(1))).toBe(false);
        await p().deliveries.claimMany([{ id: d.id, seq: 0 }], at(1), at(60_000), 'token');
        expect(await p().deliveries.settle(d.id, 0, 'skipped', at(2))).toBe(false);
        expect(await p().deliveries.settle(d.id, 0, 'cancelled', at(60_001))).toBe(true);
        expect(await find(w, d.id)).toMatchObject({ status: 'cancelled', nextAttemptAt: null });
        expect(await p().deliveries.settle(d.id, 0, 'skipped', at(60_002))).toBe(false);
      });

      it('schedules one more attempt now: a final delivery back to pending, never while it is being attempted', async () => {
        if (skip()) return;
        const w = await setUp();
        const failed = await stored(w, { status: 'failed', nextAttemptAt: null, retryStep: 3 });
        const busy = await stored(w);
        await p().deliveries.claimMany([{ id: busy.id, seq: 0 }], at(1), at(60_000), 'token');
        expect(await p().deliveries.scheduleNow(failed.id, at(5), 7)).toEqual({ id: failed.id, seq: 1, nextAttemptAt: at(5) });
        expect(await find(w, failed.id)).toMatchObject({ status: 'pending', retryStep: 7, seq: 1, nextAttemptAt: at(5) });
        expect(await p().deliveries.scheduleNow(busy.id, at(5), 7)).toBeNull();
        const cancelled = await stored(w, { status: 'cancelled', nextAttemptAt: null });
        expect(await p().deliveries.scheduleNow(cancelled.id, at(5), 7)).toBeNull();
        // a waiting delivery: the attempt now is an extra one, its schedule steps back one place
        const retrying = await stored(w, { status: 'retrying', nextAttemptAt: at(60_000), retryStep: 2 });
        expect(await p().deliveries.scheduleNow(retrying.id, at(5), 7)).toEqual({ id: retrying.id, seq: 1, nextAttemptAt: at(5) });
        expect(await find(w, retrying.id)).toMatchObject({ status: 'retrying', retryStep: 1, nextAttemptAt: at(5) });
        const pending = await stored(w, { status: 'pending', nextAttemptAt: at(60_000), retryStep: 0 });
        await p().deliveries.scheduleNow(pending.id, at(5), 7);
        expect(await find(w, pending.id)).toMatchObject({ status: 'pending', retryStep: 0, nextAttemptAt: at(5) });
      });

      it('recovers failed and skipped deliveries created since a time, in id order, a batch at a time', async () => {
        if (skip()) return;
        const w = await setUp();
        const before = await stored(w, { status: 'failed', nextAttemptAt: null, createdAt: at(-HOUR) });
        const one = await stored(w, { id: newId('del', T0.getTime() + 1), status: 'failed', nextAttemptAt: null });
        const two = await stored(w, { id: newId('del', T0.getTime() + 2), status: 'skipped', nextAttemptAt: null });
        await stored(w, { id: newId('del', T0.getTime() + 3), status: 'succeeded', nextAttemptAt: null });
        const first = await p().deliveries.recover(w.id, T0, '', at(10), 1);
        expect(first).toEqual([{ id: one.id, seq: 1, nextAttemptAt: at(10) }]);
        expect((await p().deliveries.recover(w.id, T0, one.id, at(10), 10)).map((d) => d.id)).toEqual([two.id]);
        expect(await find(w, two.id)).toMatchObject({ status: 'pending', retryStep: 0 });
        expect(await find(w, before.id)).toMatchObject({ status: 'failed' });
      });

      it('reschedules waiting deliveries long past due and unclaimed, bumping seq; abandons; settles the waiting ones of a webhook', async () => {
        if (skip()) return;
        const w = await setUp();
        const stale = await stored(w, { nextAttemptAt: at(-10 * 60_000) });
        const fresh = await stored(w, { nextAttemptAt: at(-1_000) });
        const rescheduled = await p().deliveries.rescheduleStale(at(-60_000), T0, 100);
        expect(rescheduled.filter((d) => [stale.id, fresh.id].includes(d.id))).toEqual([{ id: stale.id, seq: 1, nextAttemptAt: T0 }]);
        expect(await p().deliveries.abandon(stale.id)).toBe(true);
        expect(await find(w, stale.id)).toMatchObject({ status: 'failed', nextAttemptAt: null });
        expect(await p().deliveries.abandon(stale.id)).toBe(false);
        // A handler failure postpones a waiting delivery at its seq to when its item comes back: no longer stale.
        const failing = await stored(w, { nextAttemptAt: at(-10 * 60_000) });
        await p().deliveries.postpone([{ id: failing.id, seq: failing.seq + 1, at: at(HOUR) }]);
        expect(await find(w, failing.id)).toMatchObject({ nextAttemptAt: at(-10 * 60_000) });
        // several in one statement, each at its own seq and time
        const other = await stored(w, { nextAttemptAt: at(-10 * 60_000) });
        await p().deliveries.postpone([
          { id: failing.id, seq: failing.seq, at: at(30_000) },
          { id: other.id, seq: other.seq, at: at(40_000) },
        ]);
        expect(await find(w, failing.id)).toMatchObject({ nextAttemptAt: at(30_000) });
        expect(await find(w, other.id)).toMatchObject({ nextAttemptAt: at(40_000) });
        expect((await p().deliveries.rescheduleStale(at(-60_000), T0, 100)).map((d) => d.id)).not.toContain(failing.id);
        await stored(w, { status: 'retrying', nextAttemptAt: at(HOUR) });
        expect(await p().deliveries.settleWaiting(w.id, 'skipped')).toBe(4);
        expect(await find(w, fresh.id)).toMatchObject({ status: 'skipped', nextAttemptAt: null });
      });
    });

    describe("operators' gauges", () => {
      it('count waiting deliveries by status with the oldest due time, and disabled webhooks', async () => {
        if (skip()) return;
        const before = await p().deliveries.waitingSummary();
        const disabledBefore = await p().webhooks.countDisabled();
        const w = await setUp({ state: 'disabled', disabledAt: T0, disabledReason: 'manual' });
        await stored(w, { nextAttemptAt: at(-7 * HOUR) });
        await stored(w, { status: 'retrying', nextAttemptAt: at(HOUR) });
        await stored(w, { status: 'succeeded', nextAttemptAt: null });
        const after = await p().deliveries.waitingSummary();
        expect([after.pending - before.pending, after.retrying - before.retrying]).toEqual([1, 1]);
        expect(after.oldestDueAt!.getTime()).toBeLessThanOrEqual(at(-7 * HOUR).getTime());
        expect(await p().webhooks.countDisabled()).toBe(disabledBefore + 1);
      });
    });

    describe('WebhookStatsRepository', () => {
      it('adds to counters per hour and latency bucket, and reads them from an hour on', async () => {
        if (skip()) return;
        const w = await setUp();
        const row = (hourStart: number, latencyBucket: number, succeeded: number, failed: number) => ({ webhookId: w.id, hourStart, latencyBucket, succeeded, failed });
        const h0 = T0.getTime();
        await p().transaction(() => p().stats.add([row(h0 - HOUR, 40, 1, 0), row(h0, 40, 2, 1), row(h0, 55, 0, 1)]));
        await p().transaction(() => p().stats.add([row(h0, 40, 3, 0)]));
        const read = await p().stats.read(w.id, h0);
        expect(read.sort((a, b) => a.latencyBucket - b.latencyBucket)).toEqual([row(h0, 40, 5, 1), row(h0, 55, 0, 1)]);
        expect(await p().stats.read(w.id, h0 - HOUR)).toHaveLength(3);
        // other tests' counters of earlier hours (of attempts and of deliveries) go too
        expect(await p().stats.purgeBefore(h0, 1000)).toBeGreaterThanOrEqual(1);
        expect(await p().stats.read(w.id, h0 - HOUR)).toHaveLength(2);
        await p().stats.deleteForWebhook(w.id);
        expect(await p().stats.read(w.id, 0)).toEqual([]);
      });

      it('takes the attempts of deliveries retention purges out of the counters, and only theirs', async () => {
        if (skip()) return;
        const w = await setUp();
        const old = Math.floor(T0.getTime() / 1000) - 40 * 86_400;
        const attempted = async (d: NewDelivery, httpStatus: number) => {
          await p().deliveries.claimMany([{ id: d.id, seq: 0 }], at(HOUR), at(HOUR * 2), `t-${d.id}`);
          await recordHeld(d, `t-${d.id}`, 0, attempt(httpStatus), outcome(httpStatus === 200 ? 'succeeded' : 'failed'));
          const made = attempt(httpStatus);
          await p().transaction(() => p().stats.add(statsRowsOf([{ webhookId: w.id, deliveryCreatedAt: d.createdAt, durationMs: made.durationMs, success: httpStatus === 200 }])));
        };
        const total = async () => {
          const rows = await p().stats.read(w.id, 0);
          return { succeeded: rows.reduce((n, r) => n + r.succeeded, 0), failed: rows.reduce((n, r) => n + r.failed, 0) };
        };
        // an old event whose deliveries were made this hour (both in the same counter rows), and a recent one
        await attempted(await stored(w, { createdAt: at(1), nextAttemptAt: at(1) }, old), 200);
        await attempted(await stored(w, { createdAt: at(2), nextAttemptAt: at(2) }, old), 500);
        await attempted(await stored(w, { createdAt: at(3), nextAttemptAt: at(3) }), 200);
        expect(await total()).toEqual({ succeeded: 2, failed: 1 });
        for (let n = -1; n !== 0; ) n = await p().transaction(() => p().events.deleteCreatedBefore(old + 1, 1000));
        expect(await total()).toEqual({ succeeded: 1, failed: 0 });
      });

      it('counts the deliveries of a webhook created from an hour on, by status', async () => {
        if (skip()) return;
        const w = await setUp();
        const other = await setUp();
        await stored(w, { createdAt: at(-1) });
        await stored(w, { createdAt: T0 });
        await stored(w, { createdAt: at(5), status: 'failed', nextAttemptAt: null });
        await stored(other, { createdAt: at(5) });
        expect(await p().stats.countDeliveries(w.id, T0.getTime())).toEqual({ pending: 1, failed: 1 });
        expect(await p().stats.countDeliveries(w.id, T0.getTime() - HOUR)).toEqual({ pending: 2, failed: 1 });
        expect(await p().stats.countDeliveries(w.id, T0.getTime() + HOUR)).toEqual({});
      });

      it('counts the deliveries of a webhook created in part of an hour, by status, and their attempts, from the rows', async () => {
        if (skip()) return;
        const w = await setUp();
        const other = await setUp();
        const MINUTE = 60_000;
        const attempted = async (d: NewDelivery, httpStatus: number) => {
          await p().deliveries.claimMany([{ id: d.id, seq: 0 }], at(HOUR), at(HOUR * 2), `t-${d.id}`);
          await recordHeld(d, `t-${d.id}`, 0, attempt(httpStatus), outcome(httpStatus === 200 ? 'succeeded' : 'failed'));
        };
        await stored(w, { createdAt: at(-1) });
        await stored(w, { createdAt: at(19 * MINUTE) });
        await stored(w, { createdAt: at(20 * MINUTE) });
        await attempted(await stored(w, { createdAt: at(40 * MINUTE) }), 500);
        await attempted(await stored(w, { createdAt: at(59 * MINUTE) }), 200);
        await attempted(await stored(other, { createdAt: at(45 * MINUTE) }), 200);
        await stored(w, { createdAt: at(HOUR) });

        const part = await p().stats.countPartialHour(w.id, at(20 * MINUTE).getTime(), T0.getTime() + HOUR);
        expect(part.deliveries).toEqual({ pending: 1, failed: 1, succeeded: 1 });
        const made = (success: boolean) => ({ webhookId: w.id, deliveryCreatedAt: T0, durationMs: attempt(200).durationMs, success });
        expect(part.attempts).toEqual(statsRowsOf([made(false), made(true)]));
        expect(await p().stats.countPartialHour(w.id, at(59 * MINUTE + 1).getTime(), T0.getTime() + HOUR)).toEqual({ deliveries: {}, attempts: [] });
      });

      it('keeps those counts through every write that changes a status or deletes a delivery', async () => {
        if (skip()) return;
        const w = await setUp();
        const other = await setUp();
        /** The webhook's deliveries as stored, counted by status: what countDeliveries must say from every hour on. */
        const expectCounts = async (webhook: Webhook) => {
          const rows = await p().deliveries.listForWebhook(webhook.id, { limit: 1000 });
          for (const fromHour of [T0.getTime() - HOUR, T0.getTime(), T0.getTime() + HOUR]) {
            const direct: Record<string, number> = {};
            for (const d of rows.filter((r) => r.createdAt.getTime() >= fromHour)) direct[d.status] = (direct[d.status] ?? 0) + 1;
            expect({ fromHour, counts: await p().stats.countDeliveries(webhook.id, fromHour) }).toEqual({ fromHour, counts: direct });
          }
        };
        const record = async (d: NewDelivery, status: AttemptOutcome['status'], seq = 0) => {
          await p().deliveries.claimMany([{ id: d.id, seq }], at(HOUR * 2), at(HOUR * 3), `t-${d.id}`);
          await recordHeld(d, `t-${d.id}`, seq, attempt(200), outcome(status));
        };
        const earlier = await stored(w, { createdAt: at(-1), nextAttemptAt: at(-1) });
        const succeeding = await stored(w, { createdAt: at(1), nextAttemptAt: at(1) });
        const skipped = await stored(w, { createdAt: at(2), status: 'skipped', nextAttemptAt: null });
        const later = await stored(w, { createdAt: at(HOUR + 1), nextAttemptAt: at(HOUR + 1) });
        const failing = await stored(w, { createdAt: at(3), status: 'retrying', nextAttemptAt: at(3), retryStep: 2 });
        await stored(other, { createdAt: at(4), status: 'succeeded', nextAttemptAt: null });
        await expectCounts(w);
        await record(succeeding, 'succeeded');
        await record(failing, 'failed');
        await expectCounts(w);
        expect(await p().deliveries.settle(earlier.id, 0, 'cancelled', at(HOUR * 4))).toBe(true);
        expect(await p().deliveries.abandon(later.id)).toBe(true);
        await expectCounts(w);
        expect(await p().deliveries.scheduleNow(succeeding.id, at(HOUR * 4), 7)).not.toBeNull();
        expect((await p().deliveries.recover(w.id, at(-HOUR), '', at(HOUR * 4), 10)).length).toBe(3);
        await expectCounts(w);
        // settled by settleWaiting while its call is in flight, then its attempt recorded: cancelled, then succeeded
        const inFlight = await stored(w, { createdAt: at(6), nextAttemptAt: at(6) });
        await p().deliveries.claimMany([{ id: inFlight.id, seq: 0 }], at(HOUR * 5), at(HOUR * 6), 'in-flight');
        expect(await p().transaction(() => p().deliveries.settleWaiting(w.id, 'cancelled'))).toBe(5);
        await expectCounts(w);
        await recordHeld(inFlight, 'in-flight', 0, attempt(200), outcome('succeeded'));
        await expectCounts(w);
        // retention: an event purged takes its settled delivery out of the counts
        const old = Math.floor(T0.getTime() / 1000) - 40 * 86_400;
        await stored(w, { createdAt: at(7), status: 'succeeded', nextAttemptAt: null }, old);
        await expectCounts(w);
        for (let n = -1; n !== 0; ) n = await p().transaction(() => p().events.deleteCreatedBefore(old + 1, 1000));
        await expectCounts(w);
        await expectCounts(other);
      });
    });
  });
}
