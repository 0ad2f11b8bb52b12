import { BounceType, SendStatus } from './send-status';

/** A send record as stored. `id` is `msg_...`; `idSending` an installation-wide integer. */
export interface SendRecord {
  id: string;
  idSending: number;
  accountId: number;
  email: string;
  /** 1 api_v3, 2 api_v2, 3 smtp, 4 automation. */
  sendingType: number;
  status: SendStatus;
  /** The SMTP reply carried by the report that set the current status, if any. */
  diagCode: string | null;
  bounceType: BounceType | null;
  scheduledAt: Date | null;
  createdAt: Date;
  /** When the record last changed on this server: creation, or the last status move. */
  updatedAt: Date;
}

/** A report as kept in a send's history (also the initial `queued`/`scheduled` entry). */
export interface HistoryEntry {
  status: SendStatus;
  /** When it happened according to the producer (`at`), or when it arrived. */
  at: Date;
  diagCode: string | null;
  bounceType: BounceType | null;
}

export interface SendWithHistory extends SendRecord {
  /** Oldest first: by `at`, then by status order. */
  history: HistoryEntry[];
}

/** What a report needs to know about its send (read under a lock inside the report's transaction). */
export type LockedSend = Pick<SendRecord, 'id' | 'idSending' | 'accountId' | 'email' | 'sendingType' | 'status' | 'diagCode' | 'bounceType' | 'createdAt'>;

export type NewSend = Omit<SendRecord, 'idSending'>;

export interface NewHistoryEntry extends HistoryEntry {
  sendId: string;
  /** Identity of the report: the same report stored twice is kept once. */
  reportKey: string;
  receivedAt: Date;
}

export interface StatusMove {
  idSending: number;
  status: SendStatus;
  diagCode: string | null;
  bounceType: BounceType | null;
  updatedAt: Date;
}
