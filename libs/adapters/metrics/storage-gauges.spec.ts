import type { DeliveryRepository } from '../../event-webhooks/src/deliveries/delivery.repository';
import type { WebhookRepository } from '../../event-webhooks/src/webhooks/webhook.repository';
import type { WorkQueue } from '../../kernel/src';
import { ManualClock } from '../../kernel/src/testing/kernel-fakes';
import { Metrics } from './metrics';
import { registerStorageGauges } from './storage-gauges';

describe(registerStorageGauges.name, () => {
  it('reads the gauges at scrape time, and NaN with storage_gauges_up 0 while the database does not answer', async () => {
    const clock = new ManualClock(new Date('2026-11-27T00:00:00Z'));
    let up = true;
    const answer = <T>(value: T) => (up ? Promise.resolve(value) : Promise.reject(new Error('storage is unavailable')));
    const sources = {
      queue: { backlog: () => answer({ store: 'outbox', topics: [{ topic: 'webhook-delivery', items: 3, oldestDueAt: new Date(clock.nowMs() - 4000) }] }) } as unknown as WorkQueue,
      deliveries: { waitingSummary: () => answer({ pending: 660, retrying: 2, oldestDueAt: new Date(clock.nowMs() - 4000) }) } as unknown as DeliveryRepository,
      webhooks: { countDisabled: () => answer(1) } as unknown as WebhookRepository,
      topics: ['webhook-delivery', 'automation-step'],
    };
    const metrics = new Metrics();
    registerStorageGauges(metrics, clock, sources);
    const scrape = async () => {
      clock.advance(1000);
      return metrics.registry.metrics();
    };

    const live = await scrape();
    expect(live).toContain('webhook_deliveries_waiting{status="pending"} 660');
    expect(live).toContain('webhook_deliveries_oldest_due_age_seconds 4');
    expect(live).toContain('work_queue_items{table="outbox",topic="webhook-delivery"} 3');
    expect(live).toContain('work_queue_items{table="outbox",topic="automation-step"} 0');
    expect(live).toContain('storage_gauges_up 1');

    up = false;
    const down = await scrape();
    for (const series of [
      'webhook_deliveries_waiting{status="pending"}',
      'webhook_deliveries_oldest_due_age_seconds',
      'outbox_backlog_items',
      'webhooks_disabled',
      'work_queue_items{table="outbox",topic="webhook-delivery"}',
      'work_queue_oldest_due_age_seconds{table="outbox",topic="automation-step"}',
    ]) {
      // prom-client writes NaN as `Nan`; Prometheus reads it in any letter case
      expect(down.toLowerCase()).toContain(`${series} nan`);
    }
    expect(down).toContain('storage_gauges_up 0');

    up = true;
    expect(await scrape()).toContain('webhook_deliveries_waiting{status="pending"} 660');
  });
});
