import { IdleHeapCompaction } from './idle-heap-compaction';

describe('IdleHeapCompaction', () => {
  const busyFor = (ms: number) => {
    const end = Date.now() + ms;
    while (Date.now() < end) Math.sqrt(Math.random());
  };
  const idleFor = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('collects once the process was idle for an interval and the heap grew past `growth` × what was live', async () => {
    let collections = 0;
    // idleBelow 0.5: a test worker's own bookkeeping (a timer, a GC) must not count as load here.
    const compaction = new IdleHeapCompaction({ growth: 0, idleBelow: 0.5 }, () => collections++);
    await idleFor(200);
    expect(compaction.check()).toBe(true);
    expect(collections).toBe(1);
  });

  it('leaves a busy process alone', () => {
    let collections = 0;
    const compaction = new IdleHeapCompaction({ growth: 0, idleBelow: 0.5 }, () => collections++);
    busyFor(200);
    expect(compaction.check()).toBe(false);
    expect(collections).toBe(0);
  });

  it('leaves a heap that did not grow alone', async () => {
    let collections = 0;
    const compaction = new IdleHeapCompaction({ growth: 1_000, idleBelow: 0.5 }, () => collections++);
    await idleFor(200);
    expect(compaction.check()).toBe(false);
    expect(collections).toBe(0);
  });

  it('finds V8\'s full collection without --expose-gc, and it frees what is no longer reachable', async () => {
    let garbage: number[][] | null = Array.from({ length: 200 }, () => Array.from({ length: 10_000 }, (_, i) => i));
    const withGarbage = process.memoryUsage().heapUsed;
    garbage = null;
    const compaction = new IdleHeapCompaction({ growth: 0, idleBelow: 0.5 });
    await idleFor(200);
    expect(compaction.check()).toBe(true);
    expect(garbage).toBeNull();
    expect(process.memoryUsage().heapUsed).toBeLessThan(withGarbage);
  });
});
