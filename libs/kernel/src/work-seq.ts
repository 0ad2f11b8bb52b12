/**
 * The compare-and-set that makes queue work idempotent under at-least-once delivery, the same for
 * event deliveries and automation runs. A record (a delivery, a run) carries `seq`, naming the one
 * queue item it waits for; every item names its record and the seq it was enqueued at. These
 * functions decide; the repositories apply the decisions as conditional writes (SQL: `WHERE seq = ?`,
 * `seq = seq + 1`) because only the database can make the check and the write one step.
 */

/** What a queue item names: its record and the seq it was enqueued at. */
export interface WorkRef {
  id: string;
  seq: number;
}

/**
 * Whether an item naming `itemSeq` may act on its record: only while the record still waits for
 * work and has not moved on. Anything else is a duplicate or an outdated item, acknowledged unused.
 */
export function isCurrentWork(record: { seq: number }, waiting: boolean, itemSeq: number): boolean {
  return waiting && record.seq === itemSeq;
}

/**
 * The condition of every guarded write: nobody moved the record since it was read at `expectedSeq`
 * (another worker's progress, a retry asked for, a sweep).
 */
export function seqUnchanged(storedSeq: number, expectedSeq: number): boolean {
  return storedSeq === expectedSeq;
}

/**
 * The seq of a record scheduled anew (a retry, a step done, a reschedule by the sweeper): every item
 * naming an older seq becomes outdated.
 */
export function nextSeq(seq: number): number {
  return seq + 1;
}

/** Records a conditional write has just rescheduled, read at their old seq: the items now due for them. */
export function rescheduledWork(read: readonly WorkRef[], at: Date): Array<WorkRef & { at: Date }> {
  return read.map(({ id, seq }) => ({ id, seq: nextSeq(seq), at }));
}
