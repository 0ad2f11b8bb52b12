import { Logger } from '@nestjs/common';
import { SendStatusOptions } from './send-status.options';
import { SendStatusRetentionJob } from './send-status-retention.job';
import { SendStatusRetentionService } from './send-status-retention.service';
import { InMemoryJobLease, InMemorySendRepository, InMemoryUnitOfWork, ManualClock } from './testing/send-status.fakes';

describe(SendStatusRetentionJob.name, () => {
  let sends: InMemorySendRepository;
  let lease: InMemoryJobLease;
  let clock: ManualClock;
  let sut: SendStatusRetentionJob;

  beforeEach(async () => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    clock = new ManualClock(new Date('2024-11-22T10:00:00.000Z'));
    sends = new InMemorySendRepository();
    lease = new InMemoryJobLease();
    sut = new SendStatusRetentionJob(new SendStatusRetentionService(sends, lease, new InMemoryUnitOfWork([sends]), clock, new SendStatusOptions(365)));
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
});
