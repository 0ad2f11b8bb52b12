/**
 * Coalesces concurrent calls into batches: `submit` queues one input and resolves with its own
 * output once the batch that took it has run. While fewer than `maxConcurrent` batches run, the
 * inputs that arrived in the same turn of the event loop go at once; while they are all busy, new
 * inputs gather and go together as soon as one finishes. So a lone call waits for nothing, and
 * under load the batch size follows the load (group commit).
 */
export interface BatcherOptions {
  /** Inputs per batch at most. */
  maxSize: number;
  /** Batches running at once (default 1). */
  maxConcurrent?: number;
  /**
   * Inputs still waiting for a batch after `afterMs` (all batches busy that long) are rejected with
   * `error()`. Nothing of them has run, so the caller may say that nothing was done.
   */
  giveUp?: { afterMs: number; error: () => unknown };
}

interface Pending<I, O> {
  input: I;
  resolve(output: O): void;
  reject(error: unknown): void;
  queuedAt: number;
}

export class Batcher<I, O> {
  private pending: Array<Pending<I, O>> = [];
  private running = 0;
  private scheduled = false;
  private watchdog: NodeJS.Timeout | null = null;
  private readonly maxConcurrent: number;

  /** `run` returns one output per input, in the same order. */
  constructor(
    private readonly run: (inputs: I[]) => Promise<O[]>,
    private readonly options: BatcherOptions,
  ) {
    if (!Number.isInteger(options.maxSize) || options.maxSize < 1) throw new RangeError('maxSize must be a positive integer');
    this.maxConcurrent = options.maxConcurrent ?? 1;
  }

  submit(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.pending.push({ input, resolve, reject, queuedAt: Date.now() });
      this.schedule();
      this.watch();
    });
  }

  /** Inputs waiting for a batch (not counting those running). */
  get waiting(): number {
    return this.pending.length;
  }

  private schedule(): void {
    if (this.scheduled || this.running >= this.maxConcurrent || this.pending.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    while (this.running < this.maxConcurrent && this.pending.length > 0) {
      const batch = this.pending.splice(0, this.options.maxSize);
      this.running++;
      void this.runBatch(batch).finally(() => {
        this.running--;
        this.schedule();
      });
    }
  }

  /** One timer at a time, due when the oldest waiting input would reach giveUp.afterMs. */
  private watch(): void {
    const giveUp = this.options.giveUp;
    if (!giveUp || this.watchdog || this.pending.length === 0) return;
    const dueIn = Math.max(0, this.pending[0].queuedAt + giveUp.afterMs - Date.now());
    this.watchdog = setTimeout(() => {
      this.watchdog = null;
      const cutoff = Date.now() - giveUp.afterMs;
      let expired = 0;
      while (expired < this.pending.length && this.pending[expired].queuedAt <= cutoff) expired++;
      for (const p of this.pending.splice(0, expired)) p.reject(giveUp.error());
      this.watch();
    }, dueIn);
    this.watchdog.unref();
  }

  private async runBatch(batch: Array<Pending<I, O>>): Promise<void> {
    try {
      const outputs = await this.run(batch.map((p) => p.input));
      if (outputs.length !== batch.length) throw new Error(`batch returned ${outputs.length} outputs for ${batch.length} inputs`);
      batch.forEach((p, i) => p.resolve(outputs[i]));
    } catch (error) {
      for (const p of batch) p.reject(error);
    }
  }
}
