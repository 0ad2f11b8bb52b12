import { DomainError, unavailable } from './errors';
import { GroupCommit } from './group-commit';

describe(GroupCommit.name, () => {
  it('commits concurrent submissions together, each getting its own output', async () => {
    const commits: number[][] = [];
    const sut = new GroupCommit(async (inputs: number[]) => (commits.push(inputs), inputs.map((n) => `#${n}`)), { maxSize: 10 });
    await expect(Promise.all([1, 2, 3].map((n) => sut.submit(n)))).resolves.toEqual(['#1', '#2', '#3']);
    expect(commits).toEqual([[1, 2, 3]]);
  });

  it('retries each input alone when the shared commit fails, so one bad input fails only itself', async () => {
    const commits: number[][] = [];
    const sut = new GroupCommit(
      async (inputs: number[]) => {
        commits.push(inputs);
        if (inputs.includes(2)) throw new Error('two is refused');
        return inputs.map((n) => n * 10);
      },
      { maxSize: 10 },
    );
    const settled = await Promise.allSettled([1, 2, 3].map((n) => sut.submit(n)));
    expect(settled).toEqual([
      { status: 'fulfilled', value: 10 },
      { status: 'rejected', reason: new Error('two is refused') },
      { status: 'fulfilled', value: 30 },
    ]);
    expect(commits).toEqual([[1, 2, 3], [1], [2], [3]]);
  });

  it('rejects a lone submission with its own error, without a second try', async () => {
    let calls = 0;
    const sut = new GroupCommit(async () => {
      calls++;
      throw new Error('storage unavailable');
    }, { maxSize: 10 });
    await expect(sut.submit('x')).rejects.toThrow('storage unavailable');
    expect(calls).toBe(1);
  });

  it('fails a whole group at once when storage is unavailable, without trying each input alone', async () => {
    const commits: string[][] = [];
    const sut = new GroupCommit(async (inputs: string[]) => {
      commits.push(inputs);
      throw unavailable('storage is unavailable; nothing was accepted');
    }, { maxSize: 10 });
    const outcomes = await Promise.allSettled(['a', 'b', 'c'].map((input) => sut.submit(input)));
    expect(outcomes.map((o) => o.status === 'rejected' && (o.reason as DomainError).code)).toEqual(['unavailable', 'unavailable', 'unavailable']);
    expect(commits).toEqual([['a', 'b', 'c']]);
  });
});
