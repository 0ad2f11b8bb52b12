import { isFinal, SEND_STATUSES, SendStatus, statusRank, transition, Transition } from './send-status';

describe('send status transitions', () => {
  /**
   * Every (current status, reported status) pair. `move`: the status becomes the reported one;
   * `history`: the status stays and the report is only kept in the history.
   * Order: scheduled < queued < sent < deferred < delivered | bounced (the last two final).
   */
  const table: Array<[SendStatus, SendStatus, Transition]> = [
    ['scheduled', 'scheduled', 'history'],
    ['scheduled', 'queued', 'move'],
    ['scheduled', 'sent', 'move'],
    ['scheduled', 'deferred', 'move'],
    ['scheduled', 'delivered', 'move'],
    ['scheduled', 'bounced', 'move'],

    ['queued', 'scheduled', 'history'],
    ['queued', 'queued', 'history'],
    ['queued', 'sent', 'move'],
    ['queued', 'deferred', 'move'],
    ['queued', 'delivered', 'move'],
    ['queued', 'bounced', 'move'],

    ['sent', 'scheduled', 'history'],
    ['sent', 'queued', 'history'],
    ['sent', 'sent', 'history'],
    ['sent', 'deferred', 'move'],
    ['sent', 'delivered', 'move'],
    ['sent', 'bounced', 'move'],

    ['deferred', 'scheduled', 'history'],
    ['deferred', 'queued', 'history'],
    ['deferred', 'sent', 'history'],
    ['deferred', 'deferred', 'history'],
    ['deferred', 'delivered', 'move'],
    ['deferred', 'bounced', 'move'],

    ['delivered', 'scheduled', 'history'],
    ['delivered', 'queued', 'history'],
    ['delivered', 'sent', 'history'],
    ['delivered', 'deferred', 'history'],
    ['delivered', 'delivered', 'history'],
    ['delivered', 'bounced', 'history'],

    ['bounced', 'scheduled', 'history'],
    ['bounced', 'queued', 'history'],
    ['bounced', 'sent', 'history'],
    ['bounced', 'deferred', 'history'],
    ['bounced', 'delivered', 'history'],
    ['bounced', 'bounced', 'history'],
  ];

  it('covers every pair of statuses exactly once', () => {
    const pairs = new Set(table.map(([from, to]) => `${from}>${to}`));
    expect(pairs.size).toBe(SEND_STATUSES.length ** 2);
  });

  it.each(table)('%s + report %s -> %s', (from, to, expected) => {
    expect(transition(from, to)).toBe(expected);
  });

  it('has exactly two final statuses, which nothing moves', () => {
    expect(SEND_STATUSES.filter(isFinal)).toEqual(['delivered', 'bounced']);
    for (const final of ['delivered', 'bounced'] as const) {
      expect(SEND_STATUSES.every((to) => transition(final, to) === 'history')).toBe(true);
    }
  });

  it('orders the statuses scheduled < queued < sent < deferred < delivered = bounced', () => {
    expect(['scheduled', 'queued', 'sent', 'deferred', 'delivered'].map((s) => statusRank(s as SendStatus))).toEqual([0, 1, 2, 3, 4]);
    expect(statusRank('bounced')).toBe(statusRank('delivered'));
  });
});
