import { Batcher, BatcherOptions } from './batcher';
import { DomainError, unavailable } from './errors';

/**
 * A submission that could not start its commit within this long (every group busy, as when the
 * database stopped answering) is `unavailable`: nothing of it reached the database.
 */
export const GROUP_COMMIT_WAIT_LIMIT_MS = 10_000;

type Settled<O> = { ok: true; value: O } | { ok: false; error: unknown };

/**
 * Group commit: concurrent submissions share one `commit` call (one transaction), gathered as the
 * Batcher gathers them. When a shared call fails, each input is tried alone, so one bad input never
 * fails the others: every submission resolves with its own output or rejects with its own error.
 * Storage that is `unavailable` fails the whole group at once: trying its inputs one by one would
 * only make each wait for the same outage in turn.
 */
export class GroupCommit<I, O> {
  private readonly batcher: Batcher<I, Settled<O>>;

  /** `commit` returns one output per input, in the same order. */
  constructor(
    private readonly commit: (inputs: I[]) => Promise<O[]>,
    options: Omit<BatcherOptions, 'giveUp'>,
  ) {
    const waitedTooLong = () => unavailable(`storage is not answering: waited ${GROUP_COMMIT_WAIT_LIMIT_MS / 1000} s to commit; nothing was accepted`);
    this.batcher = new Batcher((inputs) => this.commitGroup(inputs), { ...options, giveUp: { afterMs: GROUP_COMMIT_WAIT_LIMIT_MS, error: waitedTooLong } });
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
      if (inputs.length === 1 || (error instanceof DomainError && error.code === 'unavailable')) return inputs.map(() => ({ ok: false, error }));
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
