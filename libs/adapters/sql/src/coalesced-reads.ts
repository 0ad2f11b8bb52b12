/** A plain read: no locking clause, nothing that depends on the connection it runs on. */
const PLAIN_READ = /^\s*SELECT\b/i;
const LOCKING = /\bFOR\s+UPDATE\b|\bFOR\s+SHARE\b|\bLOCK\s+IN\s+SHARE\s+MODE\b/i;
/** Reads sent together at most. */
const MAX_TOGETHER = 32;

/** Whether `sql` may travel with other reads: a SELECT that takes no lock. */
export function isPlainRead(sql: string): boolean {
  return PLAIN_READ.test(sql) && !LOCKING.test(sql);
}

interface Waiting<S, R> {
  statement: S;
  resolve(result: R): void;
  reject(error: unknown): void;
}

/**
 * MySQL: plain reads outside any transaction that are issued in the same turn of the event loop
 * (an intake batch's account and webhook lookups, reads of concurrent requests) go to the server
 * together, one round trip for all, and each caller gets its own result. Every read is its own
 * autocommit statement either way. A round trip costs more than the statements here: each write to
 * the socket wakes the server, and on a busy machine that is a good part of the CPU.
 */
export class CoalescedReads<S, R> {
  private waiting: Array<Waiting<S, R>> = [];

  constructor(
    /** Runs statements together, one result each, in order. */
    private readonly run: (statements: S[]) => Promise<R[]>,
    /** Whether an error is one every read would get alike (the database out of reach). */
    private readonly failsAll: (error: unknown) => boolean,
  ) {}

  read(statement: S): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      if (this.waiting.push({ statement, resolve, reject }) === 1) queueMicrotask(() => this.flush());
    });
  }

  private flush(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (let i = 0; i < waiting.length; i += MAX_TOGETHER) void this.send(waiting.slice(i, i + MAX_TOGETHER));
  }

  private async send(together: Array<Waiting<S, R>>): Promise<void> {
    try {
      const results = await this.run(together.map((w) => w.statement));
      together.forEach((w, i) => w.resolve(results[i]));
    } catch (error) {
      // The server stops at the first statement that fails: unless the database is out of reach
      // (then every read fails alike), each read runs again alone and gets its own answer.
      if (together.length === 1 || this.failsAll(error)) {
        for (const w of together) w.reject(error);
        return;
      }
      await Promise.all(together.map((w) => this.run([w.statement]).then(([result]) => w.resolve(result), w.reject)));
    }
  }
}
