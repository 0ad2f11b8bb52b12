import { randomBytes } from 'node:crypto';
import { SecretBox } from '../../kernel/src';
import { InMemoryTargetRepository, InMemoryTargetUsage } from './testing/fakes';
import { WebhookTargetsService } from './webhook-targets.service';
import { WebhookTargetsSettings } from './webhook-targets.settings';
import { InMemoryUnitOfWork, ManualClock } from '../../kernel/src/testing/kernel-fakes';

describe(WebhookTargetsService.name, () => {
  let repository: InMemoryTargetRepository;
  let usage: InMemoryTargetUsage;
  let secrets: SecretBox;
  let clock: ManualClock;
  let sut: WebhookTargetsService;
  const ACCOUNT = 1;
  const OTHER = 2;

  beforeEach(() => {
    repository = new InMemoryTargetRepository();
    usage = new InMemoryTargetUsage();
    secrets = new SecretBox(randomBytes(32));
    clock = new ManualClock();
    sut = new WebhookTargetsService(repository, usage, secrets, clock, new WebhookTargetsSettings(false, 10_000), new InMemoryUnitOfWork());
  });

  it('creates an unsigned target with headers and shows it without secrets', async () => {
    const target = await sut.create(ACCOUNT, { name: ' CRM ', url: 'https://crm.example.com/hook', headers: { Authorization: 'Bearer x' } });
    expect(target).toEqual({
      id: expect.stringMatching(/^tgt_[0-9a-z]{26}$/),
      name: 'CRM',
      url: 'https://crm.example.com/hook',
      headers: { Authorization: 'Bearer x' },
      signed: false,
      createdAt: '2025-11-22T02:00:00.000Z',
      updatedAt: '2025-11-22T02:00:00.000Z',
    });
    expect(await sut.list(ACCOUNT)).toEqual({ items: [target], nextCursor: null });
    expect(await sut.get(ACCOUNT, target.id)).toEqual(target);
  });

  it('generates a key, returns it once and stores it sealed', async () => {
    const created = await sut.create(ACCOUNT, { name: 'CRM', url: 'https://crm.example.com/hook', generateSigningKey: true });
    expect(created.signed).toBe(true);
    expect(created.signingKey).toMatch(/^tsk_[A-Za-z0-9_-]{43}$/);
    const stored = repository.rows.get(created.id)!;
    expect(JSON.stringify(stored)).not.toContain(created.signingKey);
    expect(secrets.open(stored.signingKeySealed!)).toBe(created.signingKey);
    const read = await sut.get(ACCOUNT, created.id);
    expect(read).not.toHaveProperty('signingKey');
    expect(read.signed).toBe(true);
  });

  it('stores a chosen key sealed without echoing it', async () => {
    const created = await sut.create(ACCOUNT, { name: 'CRM', url: 'https://crm.example.com/hook', signingKey: 'my-own-key-of-24-chars!!' });
    expect(created).not.toHaveProperty('signingKey');
    expect(secrets.open(repository.rows.get(created.id)!.signingKeySealed!)).toBe('my-own-key-of-24-chars!!');
  });

  it('updates: keeps the key when absent, replaces, removes with null, regenerates on request', async () => {
    const created = await sut.create(ACCOUNT, { name: 'CRM', url: 'https://crm.example.com/hook', headers: { 'X-A': '1' }, generateSigningKey: true });
    clock.advance(1000);
    const kept = await sut.update(ACCOUNT, created.id, { name: 'CRM 2', url: 'https://crm.example.com/v2' });
    expect(kept).toMatchObject({ name: 'CRM 2', url: 'https://crm.example.com/v2', headers: { 'X-A': '1' }, signed: true, updatedAt: '2025-11-22T02:00:01.000Z' });
    expect(kept).not.toHaveProperty('signingKey');
    expect(secrets.open(repository.rows.get(created.id)!.signingKeySealed!)).toBe(created.signingKey);

    const regenerated = await sut.update(ACCOUNT, created.id, { name: 'CRM', url: 'https://crm.example.com/hook', headers: {}, generateSigningKey: true });
    expect(regenerated.signingKey).toMatch(/^tsk_/);
    expect(regenerated.signingKey).not.toBe(created.signingKey);
    expect(regenerated.headers).toEqual({});

    const removed = await sut.update(ACCOUNT, created.id, { name: 'CRM', url: 'https://crm.example.com/hook', signingKey: null });
    expect(removed.signed).toBe(false);
    expect(repository.rows.get(created.id)!.signingKeySealed).toBeNull();
  });

  it.each([
    [{ name: '', url: 'https://example.com/' }, 'name'],
    [{ name: 'x'.repeat(201), url: 'https://example.com/' }, 'name'],
    [{ name: 'x', url: 'ftp://example.com/' }, 'http or https'],
    [{ name: 'x', url: 'http://127.0.0.1/hook' }, 'range'],
    [{ name: 'x', url: 'http://localhost:8080/hook' }, 'loopback'],
    [{ name: 'x', url: 'https://example.com/', headers: { 'Content-Type': 'text/plain' } }, 'Content-Type'],
    [{ name: 'x', url: 'https://example.com/', signingKey: 'short' }, 'signingKey'],
    [{ name: 'x', url: 'https://example.com/', signingKey: 'a-long-enough-signing-key\ud800' }, 'signingKey holds a lone UTF-16 surrogate'],
    [{ name: 'x\udc00', url: 'https://example.com/' }, 'name holds a lone UTF-16 surrogate'],
    [{ name: 'x', url: 'https://example.com/\ud800' }, 'url holds a lone UTF-16 surrogate'],
    [{ name: 'x', url: 'https://example.com/', signingKey: 'a-long-enough-signing-key', generateSigningKey: true }, 'either'],
  ])('refuses %j as invalid_parameter', async (input, message) => {
    await expect(sut.create(ACCOUNT, input)).rejects.toMatchObject({ code: 'invalid_parameter', message: expect.stringContaining(message) });
  });

  it('accepts private addresses when ALLOW_PRIVATE_TARGETS is set', async () => {
    sut = new WebhookTargetsService(repository, usage, secrets, clock, new WebhookTargetsSettings(true, 10_000), new InMemoryUnitOfWork());
    await expect(sut.create(ACCOUNT, { name: 'x', url: 'http://127.0.0.1:9/hook' })).resolves.toMatchObject({ url: 'http://127.0.0.1:9/hook' });
  });

  it("answers not_found for another account's target, and for malformed ids", async () => {
    const created = await sut.create(ACCOUNT, { name: 'CRM', url: 'https://crm.example.com/hook' });
    await expect(sut.get(OTHER, created.id)).rejects.toMatchObject({ code: 'not_found' });
    await expect(sut.update(OTHER, created.id, { name: 'x', url: 'https://example.com/' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(sut.delete(OTHER, created.id)).rejects.toMatchObject({ code: 'not_found' });
    await expect(sut.get(ACCOUNT, 'tgt_nope')).rejects.toMatchObject({ code: 'not_found' });
    expect(await sut.list(OTHER)).toEqual({ items: [], nextCursor: null });
    expect(repository.rows.get(created.id)!.name).toBe('CRM');
  });

  it('refuses to delete a target a workflow uses, naming the workflow, and deletes it once unused', async () => {
    const created = await sut.create(ACCOUNT, { name: 'CRM', url: 'https://crm.example.com/hook' });
    usage.uses.push({ accountId: ACCOUNT, targetId: created.id, workflow: { id: 'wf_1', name: 'Orders' } });
    await expect(sut.delete(ACCOUNT, created.id)).rejects.toMatchObject({ code: 'invalid_parameter', message: expect.stringContaining('wf_1 ("Orders")') });
    usage.uses.length = 0;
    await sut.delete(ACCOUNT, created.id);
    await expect(sut.get(ACCOUNT, created.id)).rejects.toMatchObject({ code: 'not_found' });
  });
});
