import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { AccountRepository } from '../../accounts/src';
import { Batcher, Clock, DomainError, ErrorCode, EventPublisher, NewEvent, newId, UnitOfWork } from '../../kernel/src';
import { HistoryEntry, LockedSend, NewHistoryEntry, NewSend, SendWithHistory } from './send';
import { finalEvent, processedEvent } from './send-events';
import { accountNotFound, invalidSendParameter, reportBatchTooLarge, sendNotFound } from './send-status.errors';
import {
  CreateSendInput,
  SEND_ID_MAX_LENGTH,
  SendReportInput,
  validateCreateSend,
  validateReport,
  validateReportItem,
  ValidSendReport,
} from './send-status.input';
import { isFinal, SENDING_TYPES, SendStatus, transition } from './send-status';
import { SendKey, SendRepository } from './send.repository';

/** At most this many reports in one batch call. */
export const REPORT_BATCH_MAX = 1000;
/** Status lookups answered by one statement at most. */
const MAX_LOOKUPS_PER_STATEMENT = 128;

export interface CreatedSend {
  id: string;
  idSending: number;
  status: 'queued' | 'scheduled';
}

export interface AcceptedReport {
  id: string;
  accepted: true;
  /** The send's status once this report is applied (unchanged for a late or repeated report). */
  status: SendStatus;
}

export interface RefusedReport {
  /** The item's `id` when it had a string one, else null. */
  id: string | null;
  error: { code: ErrorCode; message: string };
}

export type ReportResult = AcceptedReport | RefusedReport;

interface SendState {
  send: LockedSend;
  status: SendStatus;
  diagCode: string | null;
  bounceType: LockedSend['bounceType'];
  moved: boolean;
  /** The report that made the send reach delivered or bounced, in this transaction. */
  final: HistoryEntry | null;
  /** When a scheduled send left `scheduled` in this transaction: it is being sent (`email.processed`). */
  processedAt: Date | null;
}

/**
 * Transactional send status (CONTRACT §4, §5): producers create sends and report what happened
 * to them; account holders read the status by id. A status only moves forward; every report
 * joins the history (once); reaching `delivered` or `bounced` emits `email.delivered` or
 * `email.bounced` in the transaction that moves the status.
 */
@Injectable()
export class SendStatusService {
  private readonly lookups: Batcher<SendKey, SendWithHistory | null>;

  constructor(
    private readonly sends: SendRepository,
    private readonly accounts: AccountRepository,
    private readonly events: EventPublisher,
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
  ) {
    this.lookups = new Batcher((keys) => this.sends.findForAccounts(keys), { maxSize: MAX_LOOKUPS_PER_STATEMENT, maxConcurrent: 4 });
  }

  /**
   * Records a new send: `scheduled` when `scheduledAt` is in the future, else `queued`. A live
   * send (no `createdAt`) that is `queued` emits `email.processed` now; a scheduled one when a report
   * first moves it on (it is then being sent); a backfill does not.
   */
  async createSend(input: CreateSendInput): Promise<CreatedSend> {
    const now = this.clock.now();
    const valid = validateCreateSend(input, now.getTime());
    if (!(await this.accounts.findById(valid.accountId))) throw accountNotFound(valid.accountId);
    const createdAt = valid.createdAt ?? now;
    const status = valid.scheduledAt && valid.scheduledAt.getTime() > now.getTime() ? 'scheduled' : 'queued';
    const record: NewSend = {
      id: newId('msg', createdAt.getTime()),
      accountId: valid.accountId,
      email: valid.email,
      sendingType: SENDING_TYPES[valid.channel],
      status,
      diagCode: null,
      bounceType: null,
      scheduledAt: valid.scheduledAt,
      createdAt,
      updatedAt: createdAt,
    };
    return this.uow.run(async () => {
      const idSending = await this.sends.insert(record);
      const first: HistoryEntry = { status, at: createdAt, diagCode: null, bounceType: null };
      await this.sends.appendHistory([{ ...first, sendId: record.id, reportKey: reportKey(first), receivedAt: now }]);
      if (!valid.createdAt && status === 'queued') await this.events.publish([processedEvent({ ...record, idSending }, createdAt)]);
      return { id: record.id, idSending, status };
    });
  }

  /** One report; an unknown send is `not_found`. */
  async report(id: string, input: SendReportInput): Promise<AcceptedReport> {
    const [result] = await this.apply([{ id, report: validateReport(input, this.clock.nowMs()) }]);
    if ('error' in result) throw new DomainError(result.error.code, result.error.message);
    return result;
  }

  /**
   * Up to REPORT_BATCH_MAX reports in one transaction. Each item is validated and applied on its
   * own terms: the answer lists, in input order, either `{id, accepted: true, status}` or
   * `{id, error: {code, message}}` (invalid_parameter, not_found).
   */
  async reportBatch(items: unknown[]): Promise<ReportResult[]> {
    // Empty is nothing to do, as an empty event batch is: a producer flushing on a timer may send one.
    if (items.length === 0) return [];
    if (items.length > REPORT_BATCH_MAX) throw reportBatchTooLarge(REPORT_BATCH_MAX);
    const results: ReportResult[] = new Array(items.length);
    const valid: Array<{ index: number; id: string; report: ValidSendReport }> = [];
    const nowMs = this.clock.nowMs();
    items.forEach((item, index) => {
      try {
        valid.push({ index, ...validateReportItem(item, index, nowMs) });
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        const id = (item as { id?: unknown } | null)?.id;
        results[index] = { id: typeof id === 'string' ? id : null, error: { code: error.code, message: error.message } };
      }
    });
    const applied = await this.apply(valid);
    valid.forEach((item, i) => (results[item.index] = applied[i]));
    return results;
  }

  /**
   * The send `id` of `accountId`, or null. One query filtered by both, whatever the id looks
   * like: an unknown id and another account's id take the same path. Concurrent lookups share
   * that query (a round trip to the database costs more than the lookup itself).
   */
  lookup(accountId: number, id: string): Promise<SendWithHistory | null> {
    return this.lookups.submit({ accountId, id });
  }

  /**
   * Applies reports in one transaction. The sends are locked first, so the reports of one send
   * are applied by one transaction after another; then every report joins the history (a
   * repeated one is skipped by its key), each send that moves is moved once to its highest
   * status, and the final events are published, all before commit.
   */
  private async apply(items: Array<{ id: string; report: ValidSendReport }>): Promise<ReportResult[]> {
    if (items.length === 0) return [];
    const receivedAt = this.clock.now();
    const ids = [...new Set(items.map((item) => item.id).filter((id) => id.length <= SEND_ID_MAX_LENGTH))].sort();
    // Everything mutable lives inside the work: a deadlock retry runs it again from the start.
    return this.uow.run(async () => {
      const locked = new Map((ids.length ? await this.sends.lockForReports(ids) : []).map((send) => [send.id, send]));
      const states = new Map<string, SendState>();
      const history: NewHistoryEntry[] = [];
      const results = items.map(({ id, report }): ReportResult => {
        const send = locked.get(id);
        if (!send) {
          const error = sendNotFound(id);
          return { id, error: { code: error.code, message: error.message } };
        }
        let state = states.get(id);
        if (!state) {
          state = { send, status: send.status, diagCode: send.diagCode, bounceType: send.bounceType, moved: false, final: null, processedAt: null };
          states.set(id, state);
        }
        // The report's own `at`, as the contract says, even one before the send's creation (a
        // producer's clock behind the server's): the history then lists it first.
        const at = report.at ?? receivedAt;
        const entry: HistoryEntry = { status: report.status, at, diagCode: report.diagCode, bounceType: report.bounceType };
        history.push({ ...entry, sendId: id, reportKey: reportKey(entry), receivedAt });
        if (transition(state.status, entry.status) === 'move') {
          if (state.status === 'scheduled') state.processedAt = entry.at;
          Object.assign(state, { status: entry.status, diagCode: entry.diagCode, bounceType: entry.bounceType, moved: true });
          if (isFinal(entry.status)) state.final = entry;
        }
        return { id, accepted: true, status: state.status };
      });
      if (history.length) await this.sends.appendHistory(history);
      const events: NewEvent[] = [];
      for (const state of states.values()) {
        if (!state.moved) continue;
        const moved = await this.sends.moveForward({
          idSending: state.send.idSending,
          status: state.status,
          diagCode: state.diagCode,
          bounceType: state.bounceType,
          updatedAt: receivedAt,
        });
        if (moved && state.processedAt) events.push(processedEvent(state.send, state.processedAt));
        if (moved && state.final) events.push(finalEvent(state.send, state.final));
      }
      if (events.length) await this.events.publish(events);
      return results;
    });
  }
}

/** The identity of a report: the same (status, at, diagCode, bounceType) of a send is kept once. */
export function reportKey(entry: HistoryEntry): string {
  return createHash('sha256')
    .update(JSON.stringify([entry.status, entry.at.getTime(), entry.diagCode, entry.bounceType]))
    .digest('hex');
}
