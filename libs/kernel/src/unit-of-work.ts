/**
 * Runs work atomically against the source of truth. Repositories called inside `run` join the
 * same transaction without being handed it; `afterCommit` callbacks run once it has committed
 * (or at once when no transaction is open), which is how queued work is handed over only after
 * the rows it refers to exist.
 */
export abstract class UnitOfWork {
  abstract run<T>(work: () => Promise<T>, options?: UnitOfWorkOptions): Promise<T>;
  abstract afterCommit(callback: () => void | Promise<void>): void;
  /** Whether the caller is inside `run` (its work joins that transaction). */
  abstract inTransaction(): boolean;
}

export interface UnitOfWorkOptions {
  /**
   * False for a transaction whose loss in a power cut or an OS crash costs nothing but work done
   * again, which at-least-once delivery allows: the record of attempts already made (lost, the
   * attempts are made again). An adapter may then commit it without waiting for the disk; it stays
   * atomic, and a process crash never loses it. Default true: whatever answers a caller (an event
   * accepted, a setting saved) waits for the disk.
   */
  durable?: boolean;
}

/** The options of a transaction that only records work done (see UnitOfWorkOptions.durable). */
export const REDOABLE: UnitOfWorkOptions = Object.freeze({ durable: false });
