import { HOUR_MS, settledCountDeltas } from './webhook-stats';

describe(settledCountDeltas.name, () => {
  const h0 = Date.parse('2026-11-24T10:00:00.000Z');

  it('counts settled statuses only, per webhook, hour of creation and status, added up and in key order', () => {
    expect(
      settledCountDeltas([
        { webhookId: 'wh_b', createdAtMs: h0 + 5, from: 'pending', to: 'succeeded' },
        { webhookId: 'wh_a', createdAtMs: h0 + HOUR_MS + 1, from: 'retrying', to: 'failed' },
        { webhookId: 'wh_a', createdAtMs: h0 + 1, from: 'pending', to: 'succeeded' },
        { webhookId: 'wh_a', createdAtMs: h0 + 2, from: 'retrying', to: 'succeeded' },
        { webhookId: 'wh_a', createdAtMs: h0 + 3, from: 'pending', to: 'retrying' },
        { webhookId: 'wh_a', createdAtMs: h0 + 4, from: null, to: 'pending' },
      ]),
    ).toEqual([
      { webhookId: 'wh_a', hourStart: h0, status: 'succeeded', n: 2 },
      { webhookId: 'wh_a', hourStart: h0 + HOUR_MS, status: 'failed', n: 1 },
      { webhookId: 'wh_b', hourStart: h0, status: 'succeeded', n: 1 },
    ]);
  });

  it('takes a delivery out of its old settled status, and drops changes that cancel out', () => {
    expect(
      settledCountDeltas([
        { webhookId: 'wh_a', createdAtMs: h0, from: 'cancelled', to: 'succeeded' },
        { webhookId: 'wh_a', createdAtMs: h0, from: 'failed', to: 'pending' },
        { webhookId: 'wh_a', createdAtMs: h0, from: 'succeeded', to: null },
        { webhookId: 'wh_a', createdAtMs: h0, from: 'skipped', to: 'skipped' },
      ]),
    ).toEqual([
      { webhookId: 'wh_a', hourStart: h0, status: 'cancelled', n: -1 },
      { webhookId: 'wh_a', hourStart: h0, status: 'failed', n: -1 },
    ]);
  });
});
