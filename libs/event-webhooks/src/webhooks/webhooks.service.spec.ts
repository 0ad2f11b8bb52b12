import { DELIVERY_TOPIC } from '../deliveries/delivery-work';
import { MAX_PREVIOUS_SECRETS, readPreviousSecrets, writePreviousSecrets } from './previous-secrets';
import { eventWebhooksHarness, EventWebhooksHarness } from '../testing/event-webhooks.harness';
import { WebhooksService } from './webhooks.service';

const delivered = { email: 'jane@example.com', idSending: 1001, sendingType: 1, diagCode: '250 2.0.0 OK', deliveredAt: '2025-11-22T02:00:00.000Z' };

describe(WebhooksService.name, () => {
  let h: EventWebhooksHarness;
  let sut: WebhooksService;
  let acme: number;
  let other: number;

  beforeEach(async () => {
    h = eventWebhooksHarness();
    sut = h.service;
    acme = (await h.accounts.create('Acme', h.clock.now())).id;
    other = (await h.accounts.create('Other', h.clock.now())).id;
  });

  const create = (input: Record<string, unknown> = {}, accountId = acme) =>
    sut.create(accountId, { url: 'https://hooks.example.com/in', events: ['email.delivered'], ...input }, 'v3');

  describe('create', () => {
    it('shows the secret once and stores it sealed', async () => {
      const { webhook, secret } = await create({ description: 'CRM' });
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(webhook).toEqual({
        id: expect.stringMatching(/^wh_/),
        url: 'https://hooks.example.com/in',
        events: ['email.delivered'],
        description: 'CRM',
        state: 'enabled',
        apiVersion: 'v3',
        consecutiveFailures: 0,
        disabledAt: null,
        disabledReason: null,
        createdAt: h.clock.now(),
        updatedAt: h.clock.now(),
      });
      const stored = h.webhooks.rows.get(webhook.id)!;
      expect(JSON.stringify(stored)).not.toContain(secret);
      expect(h.secretBox.open(stored.sealedSecret)).toBe(secret);
      expect(await sut.get(acme, webhook.id)).not.toHaveProperty('secret');
    });

    it('records the family that created it', async () => {
      const { webhook } = await sut.create(acme, { url: 'https://a.example/', events: ['sms.sent'] }, 'v2');
      expect(webhook.apiVersion).toBe('v2');
    });

    it('allows 20 webhooks per account, refuses the 21st with limit_exceeded, and counts per account', async () => {
      for (let i = 0; i < 20; i++) await create();
      await expect(create()).rejects.toMatchObject({ code: 'limit_exceeded' });
      await expect(create({}, other)).resolves.toBeDefined();
    });

    it('answers more than 50 events with limit_exceeded before any other rule, on create and update', async () => {
      const fiftyOne = Array(51).fill('email.delivered');
      await expect(create({ url: 'not a url', events: fiftyOne })).rejects.toMatchObject({ code: 'limit_exceeded' });
      const { webhook } = await create();
      await expect(sut.update(acme, webhook.id, { url: 'not a url', events: fiftyOne })).rejects.toMatchObject({ code: 'limit_exceeded' });
    });

    it('refuses private targets unless allowed', async () => {
      await expect(create({ url: 'http://169.254.169.254/latest' })).rejects.toMatchObject({ code: 'invalid_parameter' });
      const lax = eventWebhooksHarness({ allowPrivateTargets: true });
      await expect(lax.service.create(1, { url: 'http://127.0.0.1:9/hook', events: ['email.delivered'] }, 'v3')).resolves.toBeDefined();
    });
  });

  it('hides another account\'s webhook behind not_found everywhere', async () => {
    const { webhook } = await create();
    const calls: Array<() => Promise<unknown>> = [
      () => sut.get(other, webhook.id),
      () => sut.update(other, webhook.id, { description: 'x' }),
      () => sut.delete(other, webhook.id),
      () => sut.enable(other, webhook.id),
      () => sut.disable(other, webhook.id),
      () => sut.rotateSecret(other, webhook.id),
      () => sut.sendTest(other, webhook.id),
      () => sut.listDeliveries(other, webhook.id, {}),
      () => sut.recover(other, webhook.id, '2025-01-01T00:00:00Z'),
      () => sut.get(acme, 'wh_unknown'),
    ];
    for (const call of calls) await expect(call()).rejects.toMatchObject({ code: 'not_found' });
    expect(await sut.list(other)).toEqual([]);
    expect(await sut.list(acme)).toHaveLength(1);
  });

  it('updates only the fields given', async () => {
    const { webhook } = await create({ description: 'before' });
    h.clock.advance(1000);
    const updated = await sut.update(acme, webhook.id, { events: ['email.bounced', 'email.delivered'] });
    expect(updated).toMatchObject({ url: webhook.url, description: 'before', events: ['email.bounced', 'email.delivered'], updatedAt: h.clock.now() });
    expect((await sut.update(acme, webhook.id, { description: null })).description).toBeNull();
    await expect(sut.update(acme, webhook.id, { events: [] })).rejects.toMatchObject({ code: 'invalid_parameter' });
  });

  it('cancels waiting deliveries on delete', async () => {
    const { webhook } = await create();
    await h.intake.publish([{ accountId: acme, type: 'email.delivered', data: delivered }]);
    await sut.delete(acme, webhook.id);
    expect([...h.deliveries.rows.values()].map((d) => d.status)).toEqual(['cancelled']);
    await expect(sut.get(acme, webhook.id)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('disables by hand (reason manual, waiting deliveries skipped) and enables (state, counter, disabledAt and reason reset)', async () => {
    const { webhook } = await create();
    await h.intake.publish([{ accountId: acme, type: 'email.delivered', data: delivered }]);
    h.webhooks.rows.get(webhook.id)!.consecutiveFailures = 4;

    const disabled = await sut.disable(acme, webhook.id);
    expect(disabled).toMatchObject({ state: 'disabled', disabledAt: h.clock.now(), disabledReason: 'manual' });
    expect([...h.deliveries.rows.values()].map((d) => d.status)).toEqual(['skipped']);

    const enabled = await sut.enable(acme, webhook.id);
    expect(enabled).toMatchObject({ state: 'enabled', consecutiveFailures: 0, disabledAt: null, disabledReason: null });
  });

  it('rotates the secret, keeping the previous one for the grace period', async () => {
    const { webhook, secret } = await create();
    const rotated = await sut.rotateSecret(acme, webhook.id);
    expect(rotated.secret).not.toBe(secret);
    const stored = h.webhooks.rows.get(webhook.id)!;
    expect(h.secretBox.open(stored.sealedSecret)).toBe(rotated.secret);
    const expiresAt = new Date(h.clock.nowMs() + h.settings.rotationGraceMs);
    expect(previousOf(webhook.id)).toEqual([{ secret, expiresAt }]);
    expect(stored.previousSecretExpiresAt).toEqual(expiresAt);
  });

  const previousOf = (id: string) => {
    const stored = h.webhooks.rows.get(id)!;
    return readPreviousSecrets(h.secretBox.open(stored.sealedPreviousSecret!), stored.previousSecretExpiresAt);
  };

  it('keeps every rotated-out secret for its own grace period: a second rotation does not cut the first one short', async () => {
    const { webhook, secret: a } = await create();
    const { secret: b } = await sut.rotateSecret(acme, webhook.id);
    const aExpires = new Date(h.clock.nowMs() + h.settings.rotationGraceMs);
    h.clock.advance(1_000);
    const { secret: c } = await sut.rotateSecret(acme, webhook.id);
    const bExpires = new Date(h.clock.nowMs() + h.settings.rotationGraceMs);
    expect(h.secretBox.open(h.webhooks.rows.get(webhook.id)!.sealedSecret)).toBe(c);
    expect(previousOf(webhook.id)).toEqual([{ secret: b, expiresAt: bExpires }, { secret: a, expiresAt: aExpires }]);
    expect(h.webhooks.rows.get(webhook.id)!.previousSecretExpiresAt).toEqual(bExpires);
    // Once A's grace has passed (B's has not), the next rotation drops it.
    h.clock.advance(h.settings.rotationGraceMs - 500);
    const { secret: d } = await sut.rotateSecret(acme, webhook.id);
    expect(previousOf(webhook.id).map((p) => p.secret)).toEqual([c, b]);
    expect(d).not.toBe(c);
  });

  it(`keeps at most ${MAX_PREVIOUS_SECRETS} rotated-out secrets, the newest`, async () => {
    const { webhook } = await create();
    const secrets: string[] = [];
    for (let i = 0; i < MAX_PREVIOUS_SECRETS + 3; i++) secrets.push((await sut.rotateSecret(acme, webhook.id)).secret);
    expect(previousOf(webhook.id).map((p) => p.secret)).toEqual(secrets.slice(0, -1).reverse().slice(0, MAX_PREVIOUS_SECRETS));
    expect(h.secretBox.seal(writePreviousSecrets(previousOf(webhook.id))).length).toBeLessThan(2_000);
  });

  it('two rotations at once both return a secret that signs: the second builds on the first', async () => {
    const { webhook, secret } = await create();
    const [first, second] = await Promise.all([sut.rotateSecret(acme, webhook.id), sut.rotateSecret(acme, webhook.id)]);
    const stored = h.webhooks.rows.get(webhook.id)!;
    const kept = [h.secretBox.open(stored.sealedSecret), ...previousOf(webhook.id).map((p) => p.secret)];
    expect(kept.sort()).toEqual([first.secret, second.secret, secret].sort());
  });

  it('reads a previous secret stored before there could be several (the bare secret)', () => {
    const expiresAt = new Date('2026-01-01T00:00:00Z');
    expect(readPreviousSecrets('whsec_old', expiresAt)).toEqual([{ secret: 'whsec_old', expiresAt }]);
    expect(readPreviousSecrets('whsec_old', null)).toEqual([]);
  });

  it('sends a sample event to this webhook only, whatever it subscribes to', async () => {
    const { webhook } = await create({ events: ['sms.sent'] });
    await create({ events: ['email.delivered'] });
    const { eventId } = await sut.sendTest(acme, webhook.id);
    expect([...h.deliveries.rows.values()]).toEqual([expect.objectContaining({ webhookId: webhook.id, eventId, eventType: 'email.delivered', status: 'pending' })]);
    expect(JSON.parse(h.events.find(acme, eventId)!.bodies.v3!).data).toEqual(h.catalog.get('email.delivered')!.example);
    await sut.sendTest(acme, webhook.id, 'sms.failed');
    await expect(sut.sendTest(acme, webhook.id, 'email.nope')).rejects.toMatchObject({ code: 'invalid_parameter' });
  });

  describe('deliveries', () => {
    it('lists newest first, page by page, with a status filter', async () => {
      const { webhook } = await create();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        h.clock.advance(1);
        ids.push((await sut.sendTest(acme, webhook.id)).eventId);
      }
      const first = await sut.listDeliveries(acme, webhook.id, { limit: 2 });
      expect(first.deliveries.map((d) => d.eventId)).toEqual([ids[4], ids[3]]);
      const second = await sut.listDeliveries(acme, webhook.id, { limit: 2, cursor: first.nextCursor! });
      expect(second.deliveries.map((d) => d.eventId)).toEqual([ids[2], ids[1]]);
      const last = await sut.listDeliveries(acme, webhook.id, { limit: 2, cursor: second.nextCursor! });
      expect(last).toEqual({ deliveries: [expect.objectContaining({ eventId: ids[0], status: 'pending', attempts: [] })], nextCursor: null });
      expect((await sut.listDeliveries(acme, webhook.id, {})).deliveries).toHaveLength(5);
      expect((await sut.listDeliveries(acme, webhook.id, { status: 'failed' })).deliveries).toEqual([]);
    });

    it.each([[{ status: 'lost' }], [{ limit: 0 }], [{ limit: 101 }], [{ limit: 2.5 }], [{ cursor: 'abc' }]])('refuses %j', async (query) => {
      const { webhook } = await create();
      await expect(sut.listDeliveries(acme, webhook.id, query)).rejects.toMatchObject({ code: 'invalid_parameter' });
    });

    it('retries one delivery now, with a single attempt left when it had ended', async () => {
      const { webhook } = await create();
      await h.intake.publish([{ accountId: acme, type: 'email.delivered', data: delivered }]);
      const delivery = [...h.deliveries.rows.values()][0];
      Object.assign(delivery, { status: 'failed', nextAttemptAt: null });
      h.queue.take(DELIVERY_TOPIC);

      await sut.retryDelivery(acme, webhook.id, delivery.id);

      expect(delivery).toMatchObject({ status: 'pending', seq: 1, retryStep: h.settings.retryScheduleMs.length, nextAttemptAt: h.clock.now() });
      expect(h.queue.take(DELIVERY_TOPIC)).toEqual([expect.objectContaining({ payload: { deliveryId: delivery.id, seq: 1 } })]);
      await expect(sut.retryDelivery(acme, webhook.id, 'del_unknown')).rejects.toMatchObject({ code: 'not_found' });
      const { webhook: sibling } = await create();
      await expect(sut.retryDelivery(acme, sibling.id, delivery.id)).rejects.toMatchObject({ code: 'not_found' });
    });

    it('recovers failed and skipped deliveries created at or after since', async () => {
      const { webhook } = await create();
      const publish = () => h.intake.publish([{ accountId: acme, type: 'email.delivered', data: delivered }]);
      await publish();
      h.clock.advance(60_000);
      const since = h.clock.now().toISOString();
      await publish();
      await publish();
      await publish();
      const [old, failed, skipped, succeeded] = [...h.deliveries.rows.values()];
      Object.assign(old, { status: 'failed' });
      Object.assign(failed, { status: 'failed', retryStep: 3 });
      Object.assign(skipped, { status: 'skipped' });
      Object.assign(succeeded, { status: 'succeeded' });
      h.queue.take(DELIVERY_TOPIC);

      expect(await sut.recover(acme, webhook.id, since)).toEqual({ count: 2 });

      expect([old.status, failed.status, skipped.status, succeeded.status]).toEqual(['failed', 'pending', 'pending', 'succeeded']);
      expect(failed.retryStep).toBe(0);
      expect(h.queue.take(DELIVERY_TOPIC).map((i) => i.payload.deliveryId).sort()).toEqual([failed.id, skipped.id].sort());
      await expect(sut.recover(acme, webhook.id, 'yesterday')).rejects.toMatchObject({ code: 'invalid_parameter' });
      await expect(sut.recover(acme, webhook.id, undefined)).rejects.toMatchObject({ code: 'invalid_parameter' });
      // Date.parse would roll these over to 2 March and to the next day.
      await expect(sut.recover(acme, webhook.id, '2026-02-30T00:00:00Z')).rejects.toMatchObject({ code: 'invalid_parameter' });
      await expect(sut.recover(acme, webhook.id, '2026-02-01T24:00:00Z')).rejects.toMatchObject({ code: 'invalid_parameter' });
    });

    it('refuses a retry or a recover of a disabled webhook, whose deliveries would only be skipped again, and changes nothing', async () => {
      const { webhook } = await create();
      await h.intake.publish([{ accountId: acme, type: 'email.delivered', data: delivered }]);
      const delivery = [...h.deliveries.rows.values()][0];
      Object.assign(delivery, { status: 'failed', nextAttemptAt: null });
      await sut.disable(acme, webhook.id);
      h.queue.take(DELIVERY_TOPIC);
      const refused = { code: 'invalid_parameter', message: `webhook ${webhook.id} is disabled; enable it first, then retry or recover` };

      await expect(sut.retryDelivery(acme, webhook.id, delivery.id)).rejects.toMatchObject(refused);
      await expect(sut.recover(acme, webhook.id, '2020-01-01T00:00:00Z')).rejects.toMatchObject(refused);
      expect(delivery).toMatchObject({ status: 'failed', seq: 0 });
      expect(h.queue.take(DELIVERY_TOPIC)).toEqual([]);

      await sut.enable(acme, webhook.id);
      expect(await sut.recover(acme, webhook.id, '2020-01-01T00:00:00Z')).toEqual({ count: 1 });
    });
  });
});
