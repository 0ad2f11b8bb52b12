import { randomBytes } from 'node:crypto';

/**
 * A named, time-limited lease kept in the source of truth, so that a periodic job that every
 * process schedules (the send-status purge, an outbox relay sweep...) runs in one of them at a
 * time. A holder that dies simply lets its lease expire.
 */
export abstract class JobLease {
  /**
   * Takes the lease `name` for `holder` until `now + ttlMs` when it is free, expired, or already
   * held by `holder` (which renews it). True when `holder` holds it on return.
   */
  abstract acquire(name: string, holder: string, now: Date, ttlMs: number): Promise<boolean>;
  /** Gives the lease up early; does nothing unless `holder` has it. */
  abstract release(name: string, holder: string): Promise<void>;
}

/** A holder id unique to one run of a job (not to a process: two runs in one process exclude each other too). */
export function newLeaseHolder(): string {
  return `${process.pid}-${randomBytes(8).toString('hex')}`;
}
