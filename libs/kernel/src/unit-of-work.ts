/**
 * Runs work atomically against the source of truth. Repositories called inside `run` join the
 * same transaction without being handed it; `afterCommit` callbacks run once it has committed
 * (or at once when no transaction is open), which is how queued work is handed over only after
 * the rows it refers to exist.
 */
export abstract class UnitOfWork {
  abstract run<T>(work: () => Promise<T>): Promise<T>;
  abstract afterCommit(callback: () => void | Promise<void>): void;
  /** Whether the caller is inside `run` (its work joins that transaction). */
  abstract inTransaction(): boolean;
}
