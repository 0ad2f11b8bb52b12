import { REPEATED_WARNING_INTERVAL_MS, warnAtMostEvery } from './work-items';

describe(warnAtMostEvery.name, () => {
  it('writes one warning of a kind per interval, then says how many it left out', () => {
    const lines: unknown[] = [];
    const logger = { log: () => undefined, error: () => undefined, warn: (line: unknown) => void lines.push(line) };
    const t0 = 1_000_000;
    for (let i = 0; i < 50; i++) warnAtMostEvery(logger, { msg: 'work item could not be postponed', topic: 'webhook-delivery', workId: `wrk_${i}` }, t0 + i);
    // another kind, or another topic, is written on its own
    warnAtMostEvery(logger, { msg: 'work item could not be postponed', topic: 'automation-step', workId: 'wrk_x' }, t0 + 60);
    warnAtMostEvery(logger, { msg: 'work item outcome could not be recorded', queue: 'work_items', workId: 'wrk_y' }, t0 + 70);
    warnAtMostEvery(logger, { msg: 'work item could not be postponed', topic: 'webhook-delivery', workId: 'wrk_50' }, t0 + REPEATED_WARNING_INTERVAL_MS);
    expect(lines).toEqual([
      { msg: 'work item could not be postponed', topic: 'webhook-delivery', workId: 'wrk_0' },
      { msg: 'work item could not be postponed', topic: 'automation-step', workId: 'wrk_x' },
      { msg: 'work item outcome could not be recorded', queue: 'work_items', workId: 'wrk_y' },
      { msg: 'work item could not be postponed', topic: 'webhook-delivery', workId: 'wrk_50', suppressed: 49 },
    ]);
  });
});
