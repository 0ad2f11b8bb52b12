import { IdleHeapCompaction, ProcessLoad } from './idle-heap-compaction';

/** A process whose load the test sets: utilisation since the last look, and heap in use. */
class SetLoad implements ProcessLoad {
  utilization = 0;
  heap = 100;
  utilizationSinceLastLook(): number {
    return this.utilization;
  }
  heapUsed(): number {
    return this.heap;
  }
}

describe('IdleHeapCompaction', () => {
  const setUp = () => {
    const load = new SetLoad();
    let collections = 0;
    const compaction = new IdleHeapCompaction({ idleBelow: 0.05, growth: 1.5 }, () => {
      collections++;
      load.heap = 60;
    }, load);
    return { load, compaction, collections: () => collections };
  };

  it('collects when the process was idle and the heap grew past `growth` × what was live after the last collection', () => {
    const { load, compaction, collections } = setUp();
    load.heap = 151;
    expect(compaction.check()).toBe(true);
    expect(collections()).toBe(1);
    // The live heap is now 60: growth is measured from there.
    load.heap = 89;
    expect(compaction.check()).toBe(false);
    load.heap = 91;
    expect(compaction.check()).toBe(true);
    expect(collections()).toBe(2);
  });

  it('leaves a busy process alone, however large its heap', () => {
    const { load, compaction, collections } = setUp();
    load.utilization = 0.05;
    load.heap = 10_000;
    expect(compaction.check()).toBe(false);
    expect(collections()).toBe(0);
  });

  it('leaves a heap that did not grow alone', () => {
    const { load, compaction, collections } = setUp();
    load.heap = 150;
    expect(compaction.check()).toBe(false);
    expect(collections()).toBe(0);
  });

  it("finds V8's full collection without --expose-gc, and it frees what is no longer reachable", () => {
    let garbage: number[][] | null = Array.from({ length: 200 }, () => Array.from({ length: 10_000 }, (_, i) => i));
    const withGarbage = process.memoryUsage().heapUsed;
    garbage = null;
    // Idle below 2 (utilisation never reaches it) and growth 0: only the collection itself is under test.
    const compaction = new IdleHeapCompaction({ growth: 0, idleBelow: 2 });
    expect(compaction.check()).toBe(true);
    expect(garbage).toBeNull();
    expect(process.memoryUsage().heapUsed).toBeLessThan(withGarbage);
  });
});
