import { Logger } from '@nestjs/common';
import { RunRetentionService } from '../../automations/src';
import { InMemoryRunRepository } from '../../automations/src/testing/fakes';
import { EventRetentionService } from '../../event-webhooks/src';
import { InMemoryDeliveryRepository } from '../../event-webhooks/src/testing/in-memory-delivery.repository';
import { InMemoryEventRepository } from '../../event-webhooks/src/testing/in-memory-event.repository';
import { InMemoryWebhookStatsRepository } from '../../event-webhooks/src/testing/in-memory-webhook-stats.repository';
import { EventRetentionPeriod } from '../../kernel/src';
import { SendStatusSettings } from '../../send-status/src/send-status.settings';
import { SendStatusRetentionService } from '../../send-status/src/send-status-retention.service';
import { InMemorySendRepository } from '../../send-status/src/testing/send-status.fakes';
import { RetentionJob } from './retention.job';
import { InMemoryJobLease, InMemoryUnitOfWork, ManualClock } from '../../kernel/src/testing/kernel-fakes';

describe(RetentionJob.name, () => {
  let sends: InMemorySendRepository;
  let lease: InMemoryJobLease;
  let clock: ManualClock;
  let sut: RetentionJob;
  let events: InMemoryEventRepository;
  let runs: InMemoryRunRepository;

  beforeEach(async () => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    clock = new ManualClock(new Date('2024-11-22T10:00:00.000Z'));
    sends = new InMemorySendRepository();
    lease = new InMemoryJobLease();
    events = new InMemoryEventRepository();
    runs = new InMemoryRunRepository();
    const uow = new InMemoryUnitOfWork([sends]);
    const period = new EventRetentionPeriod(30);
    sut = new RetentionJob(
      new SendStatusRetentionService(sends, lease, uow, clock, new SendStatusSettings(365)),
      new EventRetentionService(events, new InMemoryWebhookStatsRepository(new InMemoryDeliveryRepository(events)), lease, uow, clock, period),
      new RunRetentionService(runs, lease, uow, clock, period),
    );
    const createdAt = new Date('2023-01-01T00:00:00Z');
    await sends.insert({ id: 'msg_old', accountId: 1, email: 'a@example.com', sendingType: 1, status: 'queued', diagCode: null, bounceType: null, scheduledAt: null, createdAt, updatedAt: createdAt });
  });
  afterEach(() => jest.restoreAllMocks());

  it('purges once at start, without holding up the bootstrap', async () => {
    sut.onApplicationBootstrap();
    expect(sends.sends.size).toBe(1);
    for (let i = 0; i < 200 && sends.sends.size > 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(sends.sends.size).toBe(0);
  });

  it('runs one purge at a time in a process', async () => {
    const first = sut.run('daily');
    const second = sut.run('daily');
    await Promise.all([first, second]);
    expect(sends.deleteCalls).toBe(1);
    await sut.daily();
    expect(sends.deleteCalls).toBe(2);
  });

  it('skips while another process holds the lease, and logs failures instead of throwing', async () => {
    await lease.acquire(SendStatusRetentionService.LEASE, 'elsewhere', clock.now(), 60_000);
    await sut.daily();
    expect(sends.sends.size).toBe(1);
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(sends, 'deleteCreatedBefore').mockRejectedValueOnce(new Error('disk full'));
    clock.advance(60_001);
    await expect(sut.daily()).resolves.toBeUndefined();
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('disk full'));
  });

  it('does not start after shutdown began, and shutdown waits for a running purge', async () => {
    const running = sut.run('daily');
    await sut.beforeApplicationShutdown();
    await running;
    expect(sends.sends.size).toBe(0);
    await sends.insert({ id: 'msg_old2', accountId: 1, email: 'a@example.com', sendingType: 1, status: 'queued', diagCode: null, bounceType: null, scheduledAt: null, createdAt: new Date(0), updatedAt: new Date(0) });
    sut.onApplicationBootstrap();
    await sut.daily();
    expect(sends.sends.size).toBe(1);
  });

  it('purges events and runs older than EVENT_RETENTION_DAYS too, keeping younger ones', async () => {
    const at = (days: number) => new Date(clock.nowMs() - days * 86_400_000);
    const event = (id: string, days: number) => ({ id, accountId: 1, type: 'email.delivered', created: Math.floor(at(days).getTime() / 1000), receivedAt: at(days), bodies: {} });
    await events.insertNew([event('evt_old', 31), event('evt_young', 29)]);
    const run = (id: string, days: number) => ({ id, accountId: 1, workflowId: 'wf_1', workflowName: 'w', steps: [], status: 'succeeded' as const, startedAt: at(days), finishedAt: at(days), triggerBody: '{}', stepIndex: 0, seq: 1, stepStates: [], nextAt: null });
    await runs.insertMany([run('run_old', 31), run('run_young', 29), { ...run('run_old_waiting', 40), status: 'running' as const, finishedAt: null }]);
    await sut.daily();
    expect([events.find(1, 'evt_old'), events.find(1, 'evt_young')?.id]).toEqual([undefined, 'evt_young']);
    expect([await runs.findById('run_old'), (await runs.findById('run_young'))?.id]).toEqual([null, 'run_young']);
    // A run still running (a long delay) is kept until it ends.
    expect((await runs.findById('run_old_waiting'))?.id).toBe('run_old_waiting');
  });
});
