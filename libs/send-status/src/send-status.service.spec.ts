import { looksLikeId } from '../../kernel/src';
import { sendEventId } from './send-events';
import { REPORT_BATCH_MAX, SendStatusService } from './send-status.service';
import { InMemoryEventPublisher, InMemorySendRepository } from './testing/send-status.fakes';
import { InMemoryAccountRepository } from '../../accounts/src/testing/in-memory-accounts';
import { InMemoryUnitOfWork, ManualClock } from '../../kernel/src/testing/kernel-fakes';

describe(SendStatusService.name, () => {
  let clock: ManualClock;
  let accounts: InMemoryAccountRepository;
  let sends: InMemorySendRepository;
  let events: InMemoryEventPublisher;
  let sut: SendStatusService;
  let accountId: number;

  beforeEach(async () => {
    clock = new ManualClock(new Date('2024-11-22T10:00:00.000Z'));
    accounts = new InMemoryAccountRepository();
    sends = new InMemorySendRepository();
    events = new InMemoryEventPublisher();
    sut = new SendStatusService(sends, accounts, events, new InMemoryUnitOfWork([sends, events]), clock);
    accountId = (await accounts.create('Acme', clock.now())).id;
  });

  const newSend = (extra: Record<string, unknown> = {}) => sut.createSend({ accountId, email: 'jane@example.com', channel: 'api_v3', ...extra });
  const status = async (id: string) => (await sut.lookup(accountId, id))!.status;

  describe('createSend', () => {
    it('creates a queued send with a msg_ id and an installation-wide idSending', async () => {
      const a = await newSend();
      const b = await newSend();
      expect(a).toEqual({ id: expect.any(String), idSending: 1, status: 'queued' });
      expect(looksLikeId('msg', a.id)).toBe(true);
      expect(b.idSending).toBe(2);
      const stored = await sut.lookup(accountId, a.id);
      expect(stored).toMatchObject({ email: 'jane@example.com', status: 'queued', diagCode: null, bounceType: null, scheduledAt: null });
      expect(stored!.history).toEqual([{ status: 'queued', at: clock.now(), diagCode: null, bounceType: null }]);
    });

    it('is scheduled when scheduledAt is in the future, queued when it has passed', async () => {
      expect((await newSend({ scheduledAt: '2024-11-22T11:00:00Z' })).status).toBe('scheduled');
      expect((await newSend({ scheduledAt: '2024-11-22T09:00:00Z' })).status).toBe('queued');
    });

    it.each([
      ['api_v3', 1],
      ['api_v2', 2],
      ['smtp', 3],
      ['automation', 4],
    ])('maps channel %s to sendingType %d', async (channel, sendingType) => {
      const created = await newSend({ channel });
      expect(sends.sends.get(created.id)!.sendingType).toBe(sendingType);
    });

    it('emits email.processed with a deterministic id in the same transaction', async () => {
      const created = await newSend();
      expect(events.events).toEqual([
        {
          accountId,
          type: 'email.processed',
          id: sendEventId(created.id, 'email.processed'),
          data: { email: 'jane@example.com', idSending: created.idSending, sendingType: 1, processedAt: '2024-11-22T10:00:00.000Z' },
        },
      ]);
      expect(looksLikeId('evt', events.events[0].id!)).toBe(true);
    });

    it('emits email.processed for a scheduled send when a report first moves it on, dated by that report', async () => {
      const created = await newSend({ scheduledAt: '2024-11-23T08:00:00Z' });
      expect(events.events).toEqual([]);
      clock.set('2024-11-23T08:00:10Z');
      await sut.report(created.id, { status: 'sent', at: '2024-11-23T08:00:05Z' });
      await sut.report(created.id, { status: 'delivered', diagCode: '250', at: '2024-11-23T08:00:09Z' });
      expect(events.events.map((e) => [e.type, e.data])).toEqual([
        ['email.processed', { email: 'jane@example.com', idSending: created.idSending, sendingType: 1, processedAt: '2024-11-23T08:00:05.000Z' }],
        ['email.delivered', expect.objectContaining({ deliveredAt: '2024-11-23T08:00:09.000Z' })],
      ]);
    });

    it('emits email.processed before email.delivered when a scheduled send is reported delivered at once', async () => {
      const created = await newSend({ scheduledAt: '2024-11-23T08:00:00Z' });
      clock.set('2024-11-23T08:00:10Z');
      await sut.report(created.id, { status: 'delivered', diagCode: '250', at: '2024-11-23T08:00:09Z' });
      await sut.report(created.id, { status: 'sent', at: '2024-11-23T08:00:05Z' });
      expect(events.events.map((e) => [e.type, (e.data as { processedAt?: string }).processedAt])).toEqual([
        ['email.processed', '2024-11-23T08:00:09.000Z'],
        ['email.delivered', undefined],
      ]);
    });

    it('keeps the at of a report dated before the send was created (the contract: the times are the report\'s at)', async () => {
      const created = await newSend();
      await sut.report(created.id, { status: 'delivered', diagCode: '250', at: '2024-11-15T10:00:00Z' });
      const stored = await sut.lookup(accountId, created.id);
      expect(stored!.status).toBe('delivered');
      expect(stored!.history.map((h) => [h.status, h.at.toISOString()])).toEqual([
        ['delivered', '2024-11-15T10:00:00.000Z'],
        ['queued', '2024-11-22T10:00:00.000Z'],
      ]);
      expect(events.events[1].data).toMatchObject({ deliveredAt: '2024-11-15T10:00:00.000Z' });
    });

    it('backfills createdAt without emitting email.processed', async () => {
      const created = await newSend({ createdAt: '2023-11-23T10:00:00Z' });
      const stored = await sut.lookup(accountId, created.id);
      expect(stored!.createdAt.toISOString()).toBe('2023-11-23T10:00:00.000Z');
      expect(stored!.updatedAt.toISOString()).toBe('2023-11-23T10:00:00.000Z');
      expect(events.events).toEqual([]);
    });

    it.each([
      [{ channel: 'campaign' }, /channel/],
      [{ channel: 'API_V3' }, /channel/],
      [{ email: 'not-an-email' }, /email/],
      [{ email: 'a b@example.com' }, /email/],
      [{ email: 'jane@localhost' }, /email/],
      [{ email: 'zoë@example.com' }, /email/],
      [{ email: `${'a'.repeat(250)}@example.com` }, /email/],
      [{ scheduledAt: 'tomorrow' }, /scheduledAt/],
      [{ scheduledAt: '2024-11-22T10:00:00' }, /scheduledAt/],
      [{ createdAt: '2024-13-45T10:00:00Z' }, /createdAt/],
      [{ createdAt: '2023-02-29T10:00:00Z' }, /createdAt is not a valid date/],
      [{ scheduledAt: '2024-11-31T10:00:00Z' }, /scheduledAt is not a valid date/],
      [{ createdAt: '2024-11-23T10:00:00Z' }, /createdAt must not be in the future/],
      [{ accountId: 0 }, /accountId/],
    ])('refuses %j as invalid_parameter', async (extra, message) => {
      await expect(newSend(extra)).rejects.toMatchObject({ code: 'invalid_parameter', message: expect.stringMatching(message) });
      expect(sends.sends.size).toBe(0);
    });

    it('answers not_found for an unknown account', async () => {
      await expect(newSend({ accountId: 999 })).rejects.toMatchObject({ code: 'not_found' });
    });
  });

  describe('report', () => {
    it('takes an at up to 5 minutes ahead of its clock (drift), and refuses one further ahead, alone and in a batch', async () => {
      const { id } = await newSend();
      await expect(sut.report(id, { status: 'sent', at: '2024-11-22T10:05:00Z' })).resolves.toMatchObject({ accepted: true });
      const ahead = "at must not be in the future (more than 5 minutes ahead of the server's clock)";
      await expect(sut.report(id, { status: 'sent', at: '2024-11-22T10:05:01Z' })).rejects.toMatchObject({ code: 'invalid_parameter', message: ahead });
      const [result] = await sut.reportBatch([{ id, status: 'deferred', diagCode: '451', at: '2099-01-01T00:00:00Z' }]);
      expect(result).toEqual({ id, error: { code: 'invalid_parameter', message: `events[0].${ahead}` } });
    });

    it.each(['queued', 'sent', 'deferred'] as const)('moves a scheduled send to %s', async (next) => {
      const { id } = await newSend({ scheduledAt: '2024-11-23T08:00:00Z' });
      expect(await sut.report(id, { status: next })).toEqual({ id, accepted: true, status: next });
      expect(await status(id)).toBe(next);
    });

    it('reaches delivered, keeps the SMTP reply and emits email.delivered with exactly the contract fields', async () => {
      const { id, idSending } = await newSend({ channel: 'smtp' });
      await sut.report(id, { status: 'sent', at: '2024-11-22T10:00:05Z' });
      clock.advance(300_000);
      await sut.report(id, { status: 'delivered', diagCode: '250 2.0.0 OK', at: '2024-11-22T10:04:58.123Z' });
      const stored = await sut.lookup(accountId, id);
      expect(stored).toMatchObject({ status: 'delivered', diagCode: '250 2.0.0 OK', bounceType: null });
      expect(stored!.updatedAt).toEqual(clock.now());
      expect(events.ofType('email.delivered')).toEqual([
        {
          accountId,
          type: 'email.delivered',
          id: sendEventId(id, 'email.delivered'),
          data: { email: 'jane@example.com', idSending, sendingType: 3, diagCode: '250 2.0.0 OK', deliveredAt: '2024-11-22T10:04:58.123Z' },
        },
      ]);
    });

    it('reaches bounced and emits email.bounced (diagCode may be null), timed at arrival when at is absent', async () => {
      const { id, idSending } = await newSend({ channel: 'automation' });
      clock.advance(60_000);
      await sut.report(id, { status: 'bounced', bounceType: 'hard' });
      expect(await sut.lookup(accountId, id)).toMatchObject({ status: 'bounced', bounceType: 'hard', diagCode: null });
      expect(events.ofType('email.bounced')).toEqual([
        {
          accountId,
          type: 'email.bounced',
          id: sendEventId(id, 'email.bounced'),
          data: { email: 'jane@example.com', idSending, sendingType: 4, diagCode: null, bounceType: 'hard', bouncedAt: '2024-11-22T10:01:00.000Z' },
        },
      ]);
    });

    it.each([
      [{ status: 'delivered' }, /diagCode is required/],
      [{ status: 'delivered', diagCode: '  ' }, /diagCode is required/],
      [{ status: 'bounced' }, /bounceType is required/],
      [{ status: 'bounced', bounceType: 'permanent' }, /bounceType must be one of hard, soft/],
      [{ status: 'sent', bounceType: 'hard' }, /only accepted with status bounced/],
      [{ status: 'scheduled' }, /status must be one of/],
      [{ status: 'opened' }, /status must be one of/],
      [{ status: 'sent', at: 'yesterday' }, /at must be an ISO 8601/],
      [{ status: 'sent', diagCode: 'x'.repeat(1025) }, /diagCode must be a string/],
    ])('refuses %j as invalid_parameter', async (report, message) => {
      const { id } = await newSend();
      await expect(sut.report(id, report as never)).rejects.toMatchObject({ code: 'invalid_parameter', message: expect.stringMatching(message) });
      expect((await sut.lookup(accountId, id))!.history).toHaveLength(1);
    });

    it('answers not_found for an unknown send', async () => {
      await expect(sut.report('msg_00000000000000000000000000', { status: 'sent' })).rejects.toMatchObject({ code: 'not_found' });
      await expect(sut.report('x'.repeat(500), { status: 'sent' })).rejects.toMatchObject({ code: 'not_found' });
    });

    it('keeps a late report in the history without moving the status back', async () => {
      const { id } = await newSend();
      clock.advance(10 * 60_000);
      await sut.report(id, { status: 'delivered', diagCode: '250 OK', at: '2024-11-22T10:05:00Z' });
      expect(await sut.report(id, { status: 'sent', at: '2024-11-22T10:00:01Z' })).toEqual({ id, accepted: true, status: 'delivered' });
      expect(await sut.report(id, { status: 'bounced', bounceType: 'soft', at: '2024-11-22T10:06:00Z' })).toMatchObject({ status: 'delivered' });
      const stored = await sut.lookup(accountId, id);
      expect(stored!.status).toBe('delivered');
      expect(stored!.history.map((h) => h.status)).toEqual(['queued', 'sent', 'delivered', 'bounced']);
      expect(events.ofType('email.delivered')).toHaveLength(1);
      expect(events.ofType('email.bounced')).toHaveLength(0);
    });

    it('stores the same report once, and records every distinct deferral', async () => {
      const { id } = await newSend();
      clock.advance(30 * 60_000);
      const deferral = { status: 'deferred', diagCode: '451 4.7.1 try later', at: '2024-11-22T10:01:00Z' };
      await sut.report(id, deferral);
      await sut.report(id, deferral);
      await sut.report(id, { ...deferral, at: '2024-11-22T10:11:00Z' });
      await sut.report(id, { status: 'delivered', diagCode: '250 OK', at: '2024-11-22T10:20:00Z' });
      await sut.report(id, { status: 'delivered', diagCode: '250 OK', at: '2024-11-22T10:20:00Z' });
      const stored = await sut.lookup(accountId, id);
      expect(stored!.history.map((h) => `${h.status}@${h.at.toISOString()}`)).toEqual([
        'queued@2024-11-22T10:00:00.000Z',
        'deferred@2024-11-22T10:01:00.000Z',
        'deferred@2024-11-22T10:11:00.000Z',
        'delivered@2024-11-22T10:20:00.000Z',
      ]);
      expect(events.ofType('email.delivered')).toHaveLength(1);
    });

    it('rolls the status change back when the event cannot be stored (same transaction)', async () => {
      const { id } = await newSend();
      events.failNext = new Error('intake refused');
      await expect(sut.report(id, { status: 'delivered', diagCode: '250 OK' })).rejects.toThrow('intake refused');
      const stored = await sut.lookup(accountId, id);
      expect(stored!.status).toBe('queued');
      expect(stored!.history).toHaveLength(1);
      expect(events.ofType('email.delivered')).toHaveLength(0);
      // a retry of the report then succeeds and emits once
      await sut.report(id, { status: 'delivered', diagCode: '250 OK' });
      expect(events.ofType('email.delivered')).toHaveLength(1);
    });

    it('ends concurrent reports of one send in the highest status with one final event', async () => {
      const { id } = await newSend();
      const reports = [
        ...Array.from({ length: 20 }, (_, i) => ({ status: 'sent', at: `2024-11-22T10:00:${String(i).padStart(2, '0')}Z` })),
        ...Array.from({ length: 20 }, (_, i) => ({ status: 'deferred', diagCode: `451 try ${i}`, at: `2024-11-22T10:01:${String(i).padStart(2, '0')}Z` })),
        ...Array.from({ length: 10 }, (_, i) => ({ status: 'delivered', diagCode: `250 ok ${i}`, at: `2024-11-22T10:02:${String(i).padStart(2, '0')}Z` })),
        ...Array.from({ length: 10 }, (_, i) => ({ status: 'bounced', bounceType: 'soft', at: `2024-11-22T10:03:${String(i).padStart(2, '0')}Z` })),
      ].sort(() => Math.random() - 0.5);
      await Promise.all(reports.map((r) => sut.report(id, r)));
      const stored = await sut.lookup(accountId, id);
      expect(['delivered', 'bounced']).toContain(stored!.status);
      expect(stored!.history).toHaveLength(61);
      expect(events.ofType('email.delivered').length + events.ofType('email.bounced').length).toBe(1);
    });
  });

  describe('reportBatch', () => {
    it('answers each item in input order, applying the valid ones', async () => {
      const a = await newSend();
      const b = await newSend();
      const results = await sut.reportBatch([
        { id: a.id, status: 'sent' },
        { id: 'msg_unknown', status: 'sent' },
        { id: b.id, status: 'delivered' },
        { id: b.id, status: 'bounced', bounceType: 'hard' },
        { id: a.id, status: 'delivered', diagCode: '250 OK' },
        42,
        { status: 'sent' },
        { id: a.id, status: 'sent', extra: 1 },
      ]);
      expect(results).toEqual([
        { id: a.id, accepted: true, status: 'sent' },
        { id: 'msg_unknown', error: { code: 'not_found', message: expect.any(String) } },
        { id: b.id, error: { code: 'invalid_parameter', message: expect.stringContaining('events[2].diagCode') } },
        { id: b.id, accepted: true, status: 'bounced' },
        { id: a.id, accepted: true, status: 'delivered' },
        { id: null, error: { code: 'invalid_parameter', message: 'events[5] must be an object' } },
        { id: null, error: { code: 'invalid_parameter', message: expect.stringContaining('events[6].id') } },
        { id: a.id, error: { code: 'invalid_parameter', message: expect.stringContaining('extra') } },
      ]);
      expect(await status(a.id)).toBe('delivered');
      expect(await status(b.id)).toBe('bounced');
      expect(events.ofType('email.delivered').map((e) => e.data.idSending)).toEqual([a.idSending]);
      expect(events.ofType('email.bounced').map((e) => e.data.idSending)).toEqual([b.idSending]);
    });

    it('moves a send once to its highest status when the batch holds several of its reports out of order', async () => {
      const { id } = await newSend();
      const results = await sut.reportBatch([
        { id, status: 'delivered', diagCode: '250 OK', at: '2024-11-22T10:05:00Z' },
        { id, status: 'sent', at: '2024-11-22T10:00:01Z' },
        { id, status: 'deferred', diagCode: '451', at: '2024-11-22T10:02:00Z' },
      ]);
      expect(results.map((r) => ('status' in r ? r.status : null))).toEqual(['delivered', 'delivered', 'delivered']);
      const stored = await sut.lookup(accountId, id);
      expect(stored!.history.map((h) => h.status)).toEqual(['queued', 'sent', 'deferred', 'delivered']);
      expect(stored!.diagCode).toBe('250 OK');
      expect(events.ofType('email.delivered')).toHaveLength(1);
    });

    it('answers an empty batch with no results and refuses one over the limit', async () => {
      expect(await sut.reportBatch([])).toEqual([]);
      const { id } = await newSend();
      await expect(sut.reportBatch(Array.from({ length: REPORT_BATCH_MAX + 1 }, () => ({ id, status: 'sent' })))).rejects.toMatchObject({ code: 'limit_exceeded' });
      const full = await sut.reportBatch(Array.from({ length: REPORT_BATCH_MAX }, (_, i) => ({ id, status: 'sent', at: new Date(1732269600000 + i).toISOString() })));
      expect(full.every((r) => 'accepted' in r)).toBe(true);
      expect((await sut.lookup(accountId, id))!.history).toHaveLength(REPORT_BATCH_MAX + 1);
    });
  });

  describe('lookup', () => {
    it('finds nothing for another account or an unknown id', async () => {
      const { id } = await newSend();
      const other = await accounts.create('Other', clock.now());
      expect(await sut.lookup(other.id, id)).toBeNull();
      expect(await sut.lookup(accountId, 'msg_00000000000000000000000000')).toBeNull();
      expect(await sut.lookup(accountId, '"><script>')).toBeNull();
      expect(await sut.lookup(accountId, id)).not.toBeNull();
    });
  });
});
