import { getHeapSpaceStatistics } from 'node:v8';
import { IdleHeapCompaction, ProcessLoad } from './idle-heap-compaction';

const MiB = 1048576;

/** A process whose load the test sets: utilisation since the last look, heap in use, the heap's slack. */
class SetLoad implements ProcessLoad {
  utilization = 0;
  heap = 100 * MiB;
  slack = 0;
  utilizationSinceLastLook(): number {
    return this.utilization;
  }
  heapUsed(): number {
    return this.heap;
  }
  heapSlack(): number {
    return this.slack;
  }
}

describe('IdleHeapCompaction', () => {
  const setUp = () => {
    const load = new SetLoad();
    let collections = 0;
    const compaction = new IdleHeapCompaction({ idleBelow: 0.05, growth: 1.5 }, () => {
      collections++;
      load.heap = 60 * MiB;
      load.slack = 0;
    }, load);
    return { load, compaction, collections: () => collections };
  };

  it('collects when the process was idle and the heap grew past `growth` × what was live after the last collection', () => {
    const { load, compaction, collections } = setUp();
    load.heap = 151 * MiB;
    expect(compaction.check()).toBe(true);
    expect(collections()).toBe(1);
    // The live heap is now 60: growth is measured from there.
    load.heap = 89 * MiB;
    expect(compaction.check()).toBe(false);
    load.heap = 91 * MiB;
    expect(compaction.check()).toBe(true);
    expect(collections()).toBe(2);
  });

  it('collects when the heap holds much more than it uses, though the heap in use did not grow', () => {
    const { load, compaction, collections } = setUp();
    load.heap = 151 * MiB;
    compaction.check(); // live: 60 MiB
    load.heap = 70 * MiB;
    load.slack = 30 * MiB; // at most (growth − 1) × 60 MiB
    expect(compaction.check()).toBe(false);
    load.slack = 31 * MiB;
    expect(compaction.check()).toBe(true);
    expect(collections()).toBe(2);
  });

  it('leaves a small sparse heap alone: 16 MiB of slack at least', () => {
    const load = new SetLoad();
    load.heap = 4 * MiB; // live when the process started
    const compaction = new IdleHeapCompaction({ idleBelow: 0.05, growth: 1.5 }, () => undefined, load);
    load.slack = 16 * MiB;
    expect(compaction.check()).toBe(false);
    load.slack = 17 * MiB;
    expect(compaction.check()).toBe(true);
  });

  it('does not count the slack a compaction left, so a heap that cannot shrink is not collected again and again', () => {
    const load = new SetLoad();
    load.heap = 4 * MiB;
    const compaction = new IdleHeapCompaction({ idleBelow: 0.05, growth: 1.5 }, () => undefined, load);
    load.slack = 20 * MiB; // and it stays there
    expect(compaction.check()).toBe(true);
    expect(compaction.check()).toBe(false);
    load.slack = 37 * MiB;
    expect(compaction.check()).toBe(true);
  });

  it('leaves a busy process alone, however large its heap', () => {
    const { load, compaction, collections } = setUp();
    load.utilization = 0.05;
    load.heap = 10_000 * MiB;
    expect(compaction.check()).toBe(false);
    expect(collections()).toBe(0);
  });

  it('leaves a heap that did not grow alone', () => {
    const { load, compaction, collections } = setUp();
    load.heap = 150 * MiB;
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

  it('compacts the heap, so that the pages dead objects left sparse are given back', () => {
    const compaction = new IdleHeapCompaction({ growth: 0, idleBelow: 2 });
    const survivors: object[] = [];
    let all: object[] | null = [];
    for (let i = 0; i < 3_000_000; i++) {
      const object = { i, label: `s${i}`, list: [i] };
      all.push(object);
      if (i % 20 === 0) survivors.push(object);
    }
    compaction.check(); // the objects move to the old generation, side by side
    expect(all).toHaveLength(3_000_000); // (read, so that V8 keeps them alive through that collection)
    all = null;
    const before = process.memoryUsage();
    compaction.check();
    const after = process.memoryUsage();
    expect(survivors).toHaveLength(150_000);
    // Measured against what this test freed, not the whole heap: a jest worker holds other suites' heaps too.
    const freed = before.heapUsed - after.heapUsed;
    const givenBack = before.heapTotal - after.heapTotal;
    expect(freed).toBeGreaterThan(100 * MiB);
    // A full collection without compaction gave back a tenth of it here.
    expect(givenBack).toBeGreaterThan(freed * 0.7);
  });

  it('gives back the young generation a burst grew (Node 24 grows it to 128 MiB; Node 20 to 32 MiB at most, which it keeps)', () => {
    const youngCommitted = () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')!.space_size;
    let kept: object[] = [];
    for (let round = 0; round < 60; round++) {
      for (let i = 0; i < 200_000; i++) kept.push({ i, label: `y${i}` });
      kept = kept.slice(-100_000); // survivors of a scavenge or two, then garbage: V8 grows the young generation
    }
    expect(kept).toHaveLength(100_000);
    kept = [];
    new IdleHeapCompaction({ growth: 0, idleBelow: 2 }).check();
    expect(youngCommitted()).toBeLessThanOrEqual(32 * MiB);
  });
});
