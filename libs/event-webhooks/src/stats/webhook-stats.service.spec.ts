import { ReceivedWork } from '../../../kernel/src';
import { DELIVERY_TOPIC } from '../deliveries/delivery-work';
import { eventWebhooksHarness, EventWebhooksHarness } from '../testing/event-webhooks.harness';
import { bucketDurationMs, latencyBucket, percentileMs } from './latency-histogram';
import { WebhookStatsService } from './webhook-stats.service';

const delivered = { email: 'jane@example.com', idSending: 1001, sendingType: 1, diagCode: '250 2.0.0 OK', deliveredAt: '2025-11-22T02:00:00.000Z' };

describe(WebhookStatsService.name, () => {
  let h: EventWebhooksHarness;
  let acme: number;

  beforeEach(async () => {
    h = eventWebhooksHarness({ retryScheduleMs: [60_000], disableAfter: 100 });
    h.clock.set(new Date('2026-11-24T10:20:00.000Z'));
    acme = (await h.accounts.create('Acme', h.clock.now())).id;
  });

  const publish = (count: number) => h.intake.publish(Array.from({ length: count }, () => ({ accountId: acme, type: 'email.delivered', data: delivered })));
  const drainNow = async () => {
    for (const item of h.queue.take(DELIVERY_TOPIC).filter((i) => !i.runAt || i.runAt <= h.clock.now())) {
      await h.worker.handle({ id: 'w', topic: item.topic, payload: item.payload, deliveryCount: 1, failures: 0 } as ReceivedWork);
    }
  };

  it('counts deliveries by status, their attempts, the success rate, latency percentiles and hourly buckets, zeros included', async () => {
    const { webhook } = await h.service.create(acme, { url: 'https://hooks.example.com/in', events: ['email.delivered'] }, 'v3');
    const script = [
      { status: 200, durationMs: 100 },
      { status: 200, durationMs: 100 },
      { status: 500, durationMs: 1000 },
    ];
    h.http.respond = () => script.shift()!;
    await publish(3);
    await drainNow(); // 2 succeeded, 1 retrying
    h.clock.set(new Date('2026-11-24T12:05:00.000Z'));
    await publish(1);
    h.http.respond = () => ({ status: 200, durationMs: 100 });
    await drainNow(); // the new one and the retry (due at 10:21) succeed

    const stats = await h.statsService.stats(acme, webhook.id, '2026-11-24T10:00:00Z');

    expect(stats.deliveries).toEqual({ pending: 0, retrying: 0, succeeded: 4, failed: 0, skipped: 0, cancelled: 0 });
    expect(stats.attempts).toEqual({ total: 5, succeeded: 4, failed: 1 });
    expect(stats.successRate).toBe(0.8);
    // 100 ms and 1000 ms read back through their buckets (within 5 %)
    expect(stats.latencyMs).toEqual({ p50: 103, p95: 981 });
    // an attempt counts in the hour its delivery was created: the retry at 12:05 is in 10:00
    expect(stats.buckets.map((b) => [b.start.toISOString(), b.succeeded, b.failed])).toEqual([
      ['2026-11-24T10:00:00.000Z', 3, 1],
      ['2026-11-24T11:00:00.000Z', 0, 0],
      ['2026-11-24T12:00:00.000Z', 1, 0],
    ]);
    expect(stats.until).toEqual(h.clock.now());
  });

  it('defaults to the last 24 hours, answers nulls without attempts, and refuses a since out of range', async () => {
    const { webhook } = await h.service.create(acme, { url: 'https://hooks.example.com/in', events: ['email.delivered'] }, 'v3');
    const stats = await h.statsService.stats(acme, webhook.id);
    // 24 hours ago, exactly; one bucket for every hour from its hour on
    expect(stats.since).toEqual(new Date('2026-11-23T10:20:00.000Z'));
    expect(stats.buckets).toHaveLength(25);
    expect(stats.successRate).toBeNull();
    expect(stats.latencyMs).toEqual({ p50: null, p95: null });
    for (const since of ['yesterday', '2026-10-01T00:00:00Z', '2026-11-25T00:00:00Z']) {
      await expect(h.statsService.stats(acme, webhook.id, since)).rejects.toMatchObject({ code: 'invalid_parameter' });
    }
    await expect(h.statsService.stats(acme + 1, webhook.id)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('counts the deliveries created since the exact time asked and their attempts, the hour it falls in from the rows', async () => {
    const { webhook } = await h.service.create(acme, { url: 'https://hooks.example.com/in', events: ['email.delivered'] }, 'v3');
    h.http.respond = () => ({ status: 200, durationMs: 100 });
    await publish(2); // created at 10:20
    await drainNow();
    h.clock.set(new Date('2026-11-24T10:40:00.000Z'));
    h.http.respond = () => ({ status: 500, durationMs: 100 });
    await publish(1);
    await drainNow();
    h.clock.set(new Date('2026-11-24T12:10:00.000Z'));
    h.http.respond = () => ({ status: 200, durationMs: 100 });
    await drainNow(); // the retry of the 10:40 delivery succeeds: it counts in its delivery's hour
    await publish(1);
    await drainNow();

    const stats = await h.statsService.stats(acme, webhook.id, '2026-11-24T10:30:00Z');

    expect(stats.since).toEqual(new Date('2026-11-24T10:30:00.000Z'));
    expect(stats.deliveries.succeeded).toBe(2);
    expect(stats.attempts).toEqual({ total: 3, succeeded: 2, failed: 1 });
    expect(stats.buckets.map((b) => [b.start.toISOString(), b.succeeded, b.failed])).toEqual([
      ['2026-11-24T10:00:00.000Z', 1, 1],
      ['2026-11-24T11:00:00.000Z', 0, 0],
      ['2026-11-24T12:00:00.000Z', 1, 0],
    ]);
    // within the hour of until as well
    const late = await h.statsService.stats(acme, webhook.id, '2026-11-24T12:05:00Z');
    expect([late.since, late.deliveries.succeeded, late.attempts.total, late.buckets.length]).toEqual([new Date('2026-11-24T12:05:00.000Z'), 1, 1, 1]);
    // since is inclusive: a delivery created at that very time counts
    expect((await h.statsService.stats(acme, webhook.id, '2026-11-24T12:10:00Z')).deliveries.succeeded).toBe(1);
  });

  it('drops the counters of a deleted webhook', async () => {
    const { webhook } = await h.service.create(acme, { url: 'https://hooks.example.com/in', events: ['email.delivered'] }, 'v3');
    await publish(2);
    await drainNow();
    expect(h.stats.rows.size).toBe(1);
    await h.service.delete(acme, webhook.id);
    expect(h.stats.rows.size).toBe(0);
  });
});

describe('latency histogram', () => {
  it('keeps a duration within 5 % through its bucket', () => {
    for (const ms of [1, 3, 17, 100, 250, 999, 4321, 30_000]) {
      expect(Math.abs(bucketDurationMs(latencyBucket(ms)) - ms) / ms).toBeLessThan(0.05);
    }
    expect(latencyBucket(0)).toBe(0);
    expect(bucketDurationMs(0)).toBe(0);
  });

  it('reads nearest-rank percentiles from the counts', () => {
    const counts = new Map([
      [latencyBucket(10), 90],
      [latencyBucket(1000), 10],
    ]);
    expect(percentileMs(counts, 0.5)).toBe(bucketDurationMs(latencyBucket(10)));
    expect(percentileMs(counts, 0.9)).toBe(bucketDurationMs(latencyBucket(10)));
    expect(percentileMs(counts, 0.95)).toBe(bucketDurationMs(latencyBucket(1000)));
    expect(percentileMs(new Map(), 0.5)).toBeNull();
  });
});
