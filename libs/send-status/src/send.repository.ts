import { LockedSend, NewHistoryEntry, NewSend, SendWithHistory, StatusMove } from './send';

/**
 * Storage of send records and their history. Every method joins the ambient UnitOfWork
 * transaction when there is one.
 */
/** A lookup: the send `id`, as the account `accountId` asks for it. */
export interface SendKey {
  accountId: number;
  id: string;
}

export abstract class SendRepository {
  /** Stores a new send and returns its `idSending` (unique across the installation). */
  abstract insert(send: NewSend): Promise<number>;

  /**
   * Reads the named sends and holds them (row lock on MySQL) until the transaction ends, so that
   * the reports of one send are applied one transaction after the other. Unknown ids are left out.
   */
  abstract lockForReports(ids: string[]): Promise<LockedSend[]>;

  /** Appends history entries; an entry whose (sendId, reportKey) is already stored is skipped. */
  abstract appendHistory(entries: NewHistoryEntry[]): Promise<void>;

  /**
   * Moves a send forward: applied only while its current status ranks below `move.status`
   * (the database enforces forward-only). True when the row moved.
   */
  abstract moveForward(move: StatusMove): Promise<boolean>;

  /**
   * For each key, the send `id` of `accountId` with its history, or null (unknown id and another
   * account's id alike), in the order of the keys: concurrent lookups share one statement.
   */
  abstract findForAccounts(keys: SendKey[]): Promise<Array<SendWithHistory | null>>;

  /** Deletes at most `limit` sends created before `cutoff`, and their history; returns how many sends. */
  abstract deleteCreatedBefore(cutoff: Date, limit: number): Promise<number>;
}
