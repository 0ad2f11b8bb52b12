import { EventCatalog } from './event-catalog';
import { EVENT_TYPES } from './event-types';

const SEED_TYPES: Record<string, string[]> = {
  contact: ['contact.created', 'contact.updated', 'contact.deleted'],
  list: ['list.contact_added', 'list.contact_removed'],
  tag: ['tag.applied', 'tag.removed'],
  segment: ['segment.matched'],
  email: ['email.processed', 'email.delivered', 'email.opened', 'email.clicked', 'email.bounced', 'email.dropped', 'email.unsubscribed', 'email.spam_report'],
  campaign: ['campaign.started', 'campaign.finished'],
  sms: ['sms.queued', 'sms.sent', 'sms.delivered', 'sms.failed'],
  import: ['import.started', 'import.progress', 'import.completed', 'import.failed'],
  credits: ['credits.email.low', 'credits.sms.low', 'api.limit.low', 'api.limit.reached'],
  webhook: ['webhook.failing', 'webhook.disabled'],
};

describe(EventCatalog.name, () => {
  const sut = new EventCatalog();
  const delivered = { email: 'jane@example.com', idSending: 1001, sendingType: 1, diagCode: '250 2.0.0 OK', deliveredAt: '2025-11-22T02:00:00.000Z' };

  it('holds exactly the 30 types of the seed and the 2 operational ones, in their groups', () => {
    expect(EVENT_TYPES).toHaveLength(32);
    expect(EVENT_TYPES.filter((d) => d.operational).map((d) => d.type)).toEqual(['webhook.failing', 'webhook.disabled']);
    const grouped: Record<string, string[]> = {};
    for (const d of EVENT_TYPES) (grouped[d.group] ??= []).push(d.type);
    expect(grouped).toEqual(SEED_TYPES);
  });

  it.each(EVENT_TYPES.map((d) => [d.type, d] as const))('%s: a closed 2020-12 schema, a description, and a valid example', (type, definition) => {
    expect(definition.description.length).toBeGreaterThan(5);
    expect(definition.schema).toMatchObject({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', additionalProperties: false });
    expect(sut.checkData(type, definition.example)).toEqual({ ok: true });
    expect(sut.checkData(type, { ...definition.example, unexpected: 1 }).ok).toBe(false);
  });

  it('makes email.delivered exactly {email, idSending, sendingType, diagCode, deliveredAt}, all required', () => {
    const { schema } = sut.get('email.delivered')!;
    expect(Object.keys(schema.properties as object)).toEqual(['email', 'idSending', 'sendingType', 'diagCode', 'deliveredAt']);
    expect(schema.required).toEqual(['email', 'idSending', 'sendingType', 'diagCode', 'deliveredAt']);
    expect(sut.checkData('email.delivered', delivered)).toEqual({ ok: true });
    for (const field of Object.keys(delivered)) {
      const { [field]: _removed, ...missing } = delivered as Record<string, unknown>;
      expect(sut.checkData('email.delivered', missing)).toEqual({ ok: false, message: expect.stringContaining(field) });
    }
    expect(sut.checkData('email.delivered', { ...delivered, idSending: '1001' }).ok).toBe(false);
    expect(sut.checkData('email.delivered', { ...delivered, diagCode: null }).ok).toBe(false);
    expect(sut.checkData('email.delivered', { ...delivered, deliveredAt: 'yesterday' }).ok).toBe(false);
    expect(sut.checkData('email.delivered', { ...delivered, email: 'not an address' }).ok).toBe(false);
    expect(sut.checkData('email.delivered', { ...delivered, extra: true })).toEqual({ ok: false, message: 'data must not have property "extra"' });
  });

  it('makes email.bounced carry a nullable diagCode and a hard or soft bounceType', () => {
    const bounced = { email: 'jane@example.com', idSending: 7, sendingType: 3, diagCode: null, bounceType: 'soft', bouncedAt: '2025-11-22T02:00:00Z' };
    expect(Object.keys(sut.get('email.bounced')!.schema.properties as object)).toEqual(['email', 'idSending', 'sendingType', 'diagCode', 'bounceType', 'bouncedAt']);
    expect(sut.checkData('email.bounced', bounced)).toEqual({ ok: true });
    expect(sut.checkData('email.bounced', { ...bounced, diagCode: '550 5.1.1' })).toEqual({ ok: true });
    expect(sut.checkData('email.bounced', { ...bounced, bounceType: 'permanent' }).ok).toBe(false);
    const { diagCode: _d, ...withoutDiag } = bounced;
    expect(sut.checkData('email.bounced', withoutDiag).ok).toBe(false);
  });

  it('takes phone numbers in E.164 only', () => {
    const sms = { smsId: 1, phone: '+33612345678', deliveredAt: '2025-11-22T02:00:00Z' };
    expect(sut.checkData('sms.delivered', sms).ok).toBe(true);
    expect(sut.checkData('sms.delivered', { ...sms, phone: '0612345678' }).ok).toBe(false);
    expect(sut.checkData('sms.delivered', { ...sms, phone: '+0612345678' }).ok).toBe(false);
  });

  it('refuses an unknown type and names the offending field', () => {
    expect(sut.has('email.nope')).toBe(false);
    expect(sut.checkData('email.nope', {})).toEqual({ ok: false, message: 'unknown event type "email.nope"' });
    expect(sut.checkData('import.progress', { importId: 1, processed: -1, total: 1, created: 0, updated: 0, failed: 0, at: '2025-11-22T02:00:00Z' })).toEqual({
      ok: false,
      message: 'data.processed must be >= 0',
    });
  });
});
