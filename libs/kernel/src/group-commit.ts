import { Batcher, BatcherOptions } from './batcher';

type Settled<O> = { ok: true; value: O } | { ok: false; error: unknown };

/**
 * Group commit: concurrent submissions share one `commit` call (one transaction), gathered as the
 * Batcher gathers them. When a shared call fails, each input is tried alone, so one bad input never
 * fails the others: every submission resolves with its own output or rejects with its own error.
 */
export class GroupCommit<I, O> {
  private readonly batcher: Batcher<I, Settled<O>>;

  /** `commit` returns one output per input, in the same order. */
  constructor(
    private readonly commit: (inputs: I[]) => Promise<O[]>,
    options: BatcherOptions,
  ) {
    this.batcher = new Batcher((inputs) => this.commitGroup(inputs), options);
  }

  async submit(input: I): Promise<O> {
    const settled = await this.batcher.submit(input);
    if (!settled.ok) throw settled.error;
    return settled.value;
  }

  private async commitGroup(inputs: I[]): Promise<Array<Settled<O>>> {
    try {
      return (await this.commit(inputs)).map((value) => ({ ok: true, value }));
    } catch (error) {
      if (inputs.length === 1) return [{ ok: false, error }];
    }
    const results: Array<Settled<O>> = [];
    for (const input of inputs) {
      try {
        const [value] = await this.commit([input]);
        results.push({ ok: true, value });
      } catch (error) {
        results.push({ ok: false, error });
      }
    }
    return results;
  }
}
