import { EventPublisher, NewEvent } from '../../../kernel/src';
import type { Snapshotting } from '../../../kernel/src/testing/kernel-fakes';
import { HistoryEntry, LockedSend, NewHistoryEntry, NewSend, SendRecord, SendWithHistory, StatusMove } from '../send';
import { statusRank } from '../send-status';
import { SendKey, SendRepository } from '../send.repository';

/**
 * In-memory fakes of the ports send-status uses, for unit tests. They hold state (no call-count
 * mocks) and take snapshots, so the kernel's InMemoryUnitOfWork rolls them back when a run throws,
 * as the database transaction would.
 */


export class InMemorySendRepository extends SendRepository implements Snapshotting {
  sends = new Map<string, SendRecord>();
  history = new Map<string, NewHistoryEntry[]>();
  private nextIdSending = 1;
  /** How many deleteCreatedBefore calls were made (to observe batching). */
  deleteCalls = 0;

  async insert(send: NewSend): Promise<number> {
    if (this.sends.has(send.id)) throw new Error(`duplicate send id ${send.id}`);
    const idSending = this.nextIdSending++;
    this.sends.set(send.id, { ...send, idSending });
    return idSending;
  }

  async lockForReports(ids: string[]): Promise<LockedSend[]> {
    return ids.flatMap((id) => {
      const s = this.sends.get(id);
      return s ? [{ id: s.id, idSending: s.idSending, accountId: s.accountId, email: s.email, sendingType: s.sendingType, status: s.status, diagCode: s.diagCode, bounceType: s.bounceType, createdAt: s.createdAt }] : [];
    });
  }

  async appendHistory(entries: NewHistoryEntry[]): Promise<void> {
    for (const entry of entries) {
      const list = this.history.get(entry.sendId) ?? [];
      if (list.some((e) => e.reportKey === entry.reportKey)) continue;
      list.push({ ...entry });
      this.history.set(entry.sendId, list);
    }
  }

  async moveForward(move: StatusMove): Promise<boolean> {
    const send = [...this.sends.values()].find((s) => s.idSending === move.idSending);
    if (!send || statusRank(send.status) >= statusRank(move.status)) return false;
    Object.assign(send, { status: move.status, diagCode: move.diagCode, bounceType: move.bounceType, updatedAt: move.updatedAt });
    return true;
  }

  async findForAccounts(keys: SendKey[]): Promise<Array<SendWithHistory | null>> {
    return keys.map(({ accountId, id }) => this.findForAccount(accountId, id));
  }

  private findForAccount(accountId: number, id: string): SendWithHistory | null {
    const send = this.sends.get(id);
    if (!send || send.accountId !== accountId) return null;
    const history: HistoryEntry[] = (this.history.get(id) ?? [])
      .map(({ status, at, diagCode, bounceType }) => ({ status, at, diagCode, bounceType }))
      .sort((a, b) => a.at.getTime() - b.at.getTime() || statusRank(a.status) - statusRank(b.status));
    return { ...send, history };
  }

  async deleteCreatedBefore(cutoff: Date, limit: number): Promise<number> {
    this.deleteCalls++;
    const doomed = [...this.sends.values()]
      .filter((s) => s.createdAt.getTime() < cutoff.getTime())
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
      .slice(0, limit);
    for (const s of doomed) {
      this.sends.delete(s.id);
      this.history.delete(s.id);
    }
    return doomed.length;
  }

  snapshot(): () => void {
    const sends = new Map([...this.sends].map(([k, v]) => [k, { ...v }]));
    const history = new Map([...this.history].map(([k, v]) => [k, v.map((e) => ({ ...e }))]));
    const next = this.nextIdSending;
    return () => {
      this.sends = sends;
      this.history = history;
      this.nextIdSending = next;
    };
  }
}

/** Stores published events, accepting a repeated id once (as the real intake does). */
export class InMemoryEventPublisher extends EventPublisher implements Snapshotting {
  events: NewEvent[] = [];
  /** When set, the next publish throws this (to prove the status change rolls back with it). */
  failNext: Error | null = null;

  async publish(events: NewEvent[]): Promise<string[]> {
    if (this.failNext) {
      const error = this.failNext;
      this.failNext = null;
      throw error;
    }
    for (const event of events) {
      if (!this.events.some((e) => e.id !== undefined && e.id === event.id)) this.events.push(event);
    }
    return events.map((e) => e.id ?? '');
  }

  ofType(type: string): NewEvent[] {
    return this.events.filter((e) => e.type === type);
  }

  snapshot(): () => void {
    const events = [...this.events];
    return () => {
      this.events = events;
    };
  }
}

