import { Batcher } from './batcher';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe(Batcher.name, () => {
  it('runs a lone call at once, alone', async () => {
    const batches: number[][] = [];
    const sut = new Batcher(async (inputs: number[]) => (batches.push(inputs), inputs.map((n) => n * 2)), { maxSize: 10 });
    await expect(sut.submit(21)).resolves.toBe(42);
    expect(batches).toEqual([[21]]);
  });

  it('gathers the calls of one turn, and those that arrive while a batch runs, into the next batch', async () => {
    const batches: number[][] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const sut = new Batcher(
      async (inputs: number[]) => {
        batches.push(inputs);
        if (batches.length === 1) await gate;
        return inputs.map((n) => -n);
      },
      { maxSize: 3 },
    );
    const first = [1, 2].map((n) => sut.submit(n));
    await tick();
    const later = [3, 4, 5, 6].map((n) => sut.submit(n));
    await tick();
    expect(batches).toEqual([[1, 2]]);
    expect(sut.waiting).toBe(4);
    release();
    await expect(Promise.all([...first, ...later])).resolves.toEqual([-1, -2, -3, -4, -5, -6]);
    expect(batches).toEqual([[1, 2], [3, 4, 5], [6]]);
  });

  it('runs up to maxConcurrent batches at once', async () => {
    let running = 0;
    let most = 0;
    const sut = new Batcher(
      async (inputs: number[]) => {
        most = Math.max(most, ++running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running--;
        return inputs;
      },
      { maxSize: 1, maxConcurrent: 2 },
    );
    await Promise.all([1, 2, 3, 4, 5].map((n) => sut.submit(n)));
    expect(most).toBe(2);
  });

  it('rejects every call of a batch that failed, and goes on with the next', async () => {
    const sut = new Batcher(async (inputs: string[]) => {
      if (inputs.includes('bad')) throw new Error('storage down');
      return inputs;
    }, { maxSize: 10 });
    const failed = [sut.submit('bad'), sut.submit('ok')];
    await expect(Promise.all(failed)).rejects.toThrow('storage down');
    await expect(failed[1]).rejects.toThrow('storage down');
    await expect(sut.submit('fine')).resolves.toBe('fine');
  });

  it('refuses a batch function that returns the wrong number of outputs', async () => {
    const sut = new Batcher(async () => [], { maxSize: 10 });
    await expect(sut.submit(1)).rejects.toThrow('0 outputs for 1 inputs');
  });

  it('gives up on inputs that waited giveUp.afterMs for a batch, and runs none of them', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    try {
      const batches: string[][] = [];
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const sut = new Batcher(
        async (inputs: string[]) => {
          batches.push(inputs);
          await gate;
          return inputs;
        },
        { maxSize: 10, giveUp: { afterMs: 1_000, error: () => new Error('gave up') } },
      );
      const stuck = sut.submit('in the running batch');
      await tick();
      const early = sut.submit('waited 1 s');
      jest.advanceTimersByTime(600);
      const late = sut.submit('waited 0.4 s');
      const outcomes = Promise.allSettled([early, late]);
      jest.advanceTimersByTime(400);
      await expect(early).rejects.toThrow('gave up');
      expect(sut.waiting).toBe(1);
      release();
      await expect(stuck).resolves.toBe('in the running batch');
      await expect(late).resolves.toBe('waited 0.4 s');
      await outcomes;
      expect(batches).toEqual([['in the running batch'], ['waited 0.4 s']]);
    } finally {
      jest.useRealTimers();
    }
  });
});
