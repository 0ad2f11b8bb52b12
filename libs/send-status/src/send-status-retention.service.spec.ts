import { SendStatusSettings } from './send-status.settings';
import { SendStatusRetentionService } from './send-status-retention.service';
import { InMemorySendRepository } from './testing/send-status.fakes';
import { InMemoryJobLease, InMemoryUnitOfWork, ManualClock } from '../../kernel/src/testing/kernel-fakes';

const DAY = 86_400_000;

describe(SendStatusRetentionService.name, () => {
  let clock: ManualClock;
  let sends: InMemorySendRepository;
  let lease: InMemoryJobLease;
  let sut: SendStatusRetentionService;

  beforeEach(() => {
    clock = new ManualClock(new Date('2024-11-22T10:00:00.000Z'));
    sends = new InMemorySendRepository();
    lease = new InMemoryJobLease();
    sut = new SendStatusRetentionService(sends, lease, new InMemoryUnitOfWork([sends]), clock, new SendStatusSettings(365));
  });

  const seed = async (count: number, ageDays: number) => {
    for (let i = 0; i < count; i++) {
      const createdAt = new Date(clock.nowMs() - ageDays * DAY);
      const id = `msg_${ageDays}_${i}`;
      await sends.insert({ id, accountId: 1, email: 'a@example.com', sendingType: 1, status: 'queued', diagCode: null, bounceType: null, scheduledAt: null, createdAt, updatedAt: createdAt });
      await sends.appendHistory([{ sendId: id, reportKey: 'k', receivedAt: createdAt, status: 'queued', at: createdAt, diagCode: null, bounceType: null }]);
    }
  };

  it('deletes sends created before the retention period, with their history, and keeps the younger ones', async () => {
    await seed(3, 366);
    await seed(2, 364);
    expect(await sut.purgeNow()).toBe(3);
    expect([...sends.sends.keys()].sort()).toEqual(['msg_364_0', 'msg_364_1']);
    expect([...sends.history.keys()].sort()).toEqual(['msg_364_0', 'msg_364_1']);
    expect(await sut.purgeNow()).toBe(0);
  });

  it('purges in batches of 1000 and releases its lease', async () => {
    await seed(2500, 400);
    expect(await sut.purgeIfFree()).toBe(2500);
    expect(sends.deleteCalls).toBe(3);
    expect(lease.leases.size).toBe(0);
  });

  it('skips the scheduled run while another process holds the lease, and runs once it expires', async () => {
    await seed(1, 400);
    await lease.acquire(SendStatusRetentionService.LEASE, 'other-process', clock.now(), 60_000);
    expect(await sut.purgeIfFree()).toBeNull();
    expect(sends.sends.size).toBe(1);
    clock.advance(60_001);
    expect(await sut.purgeIfFree()).toBe(1);
  });

  it('makes the operator run wait for a running purge, then purge', async () => {
    await seed(1, 400);
    await lease.acquire(SendStatusRetentionService.LEASE, 'other-process', clock.now(), 60_000);
    const waiting = sut.purgeNow(10_000);
    setTimeout(() => void lease.release(SendStatusRetentionService.LEASE, 'other-process'), 50);
    expect(await waiting).toBe(1);
  });

  it('gives up with unavailable when the other run does not end in time', async () => {
    await lease.acquire(SendStatusRetentionService.LEASE, 'other-process', clock.now(), 60_000);
    await expect(sut.purgeNow(0)).rejects.toMatchObject({ code: 'unavailable' });
  });

  it('stops between batches when asked to', async () => {
    await seed(2500, 400);
    expect(await sut.purgeIfFree(() => true)).toBe(1000);
    expect(sends.sends.size).toBe(1500);
  });
});
