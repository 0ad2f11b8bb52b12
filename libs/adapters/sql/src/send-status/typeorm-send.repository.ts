import { HistoryEntry, LockedSend, NewHistoryEntry, NewSend, SendWithHistory, StatusMove } from '../../../../send-status/src/send';
import { BounceType, SendStatus, statusRank } from '../../../../send-status/src/send-status';
import { SendKey, SendRepository } from '../../../../send-status/src/send.repository';
import { placeholders } from '../event-webhooks/multi-row-insert';
import { readForUpdate } from '../read-for-update';
import { TypeormDatabase } from '../typeorm-database';

interface SendRow {
  id: string;
  id_sending: number | string;
  account_id: number | string;
  email: string;
  sending_type: number | string;
  status: SendStatus;
  diag_code: string | null;
  bounce_type: BounceType | null;
  scheduled_at?: number | string | null;
  created_at?: number | string;
  updated_at?: number | string;
}

interface LookupRow extends SendRow {
  h_status: SendStatus | null;
  h_at: number | string | null;
  h_diag_code: string | null;
  h_bounce_type: BounceType | null;
}

const HISTORY_CHUNK = 100;
const LOCK_CHUNK = 1000;

const ms = (value: number | string | null | undefined): Date | null => (value === null || value === undefined ? null : new Date(Number(value)));

/**
 * Send records in `sends` and their reports in `send_history` (migration 1732230002000).
 * Portable SQL with `?` placeholders; the two dialect differences are the lock of a report's rows
 * (readForUpdate) and the spelling of "insert unless this key exists".
 */
export class TypeormSendRepository extends SendRepository {
  constructor(private readonly db: TypeormDatabase) {
    super();
  }

  async insert(send: NewSend): Promise<number> {
    const { insertId } = await this.db.exec(
      `INSERT INTO sends (id, account_id, email, sending_type, status, status_rank, diag_code, bounce_type, scheduled_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        send.id,
        send.accountId,
        send.email,
        send.sendingType,
        send.status,
        statusRank(send.status),
        send.diagCode,
        send.bounceType,
        send.scheduledAt?.getTime() ?? null,
        send.createdAt.getTime(),
        send.updatedAt.getTime(),
      ],
    );
    if (insertId === null || !Number.isSafeInteger(Number(insertId))) throw new Error('the database returned no id_sending');
    return Number(insertId);
  }

  async lockForReports(ids: string[]): Promise<LockedSend[]> {
    const out: LockedSend[] = [];
    for (let i = 0; i < ids.length; i += LOCK_CHUNK) {
      const chunk = [...ids.slice(i, i + LOCK_CHUNK)].sort();
      const rows = await readForUpdate<SendRow>(this.db, {
        table: 'sends',
        columns: 'id, id_sending, account_id, email, sending_type, status, diag_code, bounce_type, created_at',
        where: `id IN (${placeholders(chunk)})`,
        params: chunk,
        then: 'ORDER BY id',
      });
      out.push(...rows.map(toLockedSend));
    }
    return out;
  }

  async appendHistory(entries: NewHistoryEntry[]): Promise<void> {
    // Only a duplicate key is skipped (MySQL's INSERT IGNORE would also swallow other errors).
    const onDuplicate = this.db.dialect === 'mysql' ? ' ON DUPLICATE KEY UPDATE report_key = report_key' : ' ON CONFLICT (send_id, report_key) DO NOTHING';
    for (let i = 0; i < entries.length; i += HISTORY_CHUNK) {
      const chunk = entries.slice(i, i + HISTORY_CHUNK);
      const params: unknown[] = [];
      for (const e of chunk) params.push(e.sendId, e.reportKey, e.status, e.at.getTime(), e.diagCode, e.bounceType, e.receivedAt.getTime());
      await this.db.exec(
        `INSERT INTO send_history (send_id, report_key, status, at, diag_code, bounce_type, received_at) VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}${onDuplicate}`,
        params,
      );
    }
  }

  async moveForward(move: StatusMove): Promise<boolean> {
    const rank = statusRank(move.status);
    const { affected } = await this.db.exec(
      'UPDATE sends SET status = ?, status_rank = ?, diag_code = ?, bounce_type = ?, updated_at = ? WHERE id_sending = ? AND status_rank < ?',
      [move.status, rank, move.diagCode, move.bounceType, move.updatedAt.getTime(), move.idSending, rank],
    );
    return affected === 1;
  }

  async findForAccounts(keys: SendKey[]): Promise<Array<SendWithHistory | null>> {
    if (keys.length === 0) return [];
    const ids = [...new Set(keys.map((k) => k.id))];
    const accountIds = [...new Set(keys.map((k) => k.accountId))];
    // One statement for any ids: filtered by account and id together, history joined in.
    const rows = await this.db.query<LookupRow>(
      `SELECT s.id, s.id_sending, s.account_id, s.email, s.sending_type, s.status, s.diag_code, s.bounce_type, s.scheduled_at, s.created_at, s.updated_at,
              h.status AS h_status, h.at AS h_at, h.diag_code AS h_diag_code, h.bounce_type AS h_bounce_type
       FROM sends s LEFT JOIN send_history h ON h.send_id = s.id
       WHERE s.id IN (${placeholders(ids)}) AND ${this.db.filterOnly('s.account_id')} IN (${placeholders(accountIds)})`,
      [...ids, ...accountIds],
    );
    // MySQL's PAD SPACE collations also match `id + ' '`: keep the exact id only (both engines alike).
    const rowsById = new Map<string, LookupRow[]>();
    for (const row of rows) {
      const same = rowsById.get(row.id);
      if (same) same.push(row);
      else rowsById.set(row.id, [row]);
    }
    return keys.map(({ accountId, id }) => toSendWithHistory((rowsById.get(id) ?? []).filter((r) => Number(r.account_id) === accountId)));
  }


  async deleteCreatedBefore(cutoff: Date, limit: number): Promise<number> {
    const rows = await this.db.query<{ id_sending: number | string; id: string }>(
      `SELECT id_sending, id FROM sends WHERE created_at < ? ORDER BY created_at LIMIT ${Math.max(1, Math.floor(limit))}`,
      [cutoff.getTime()],
    );
    if (rows.length === 0) return 0;
    const marks = rows.map(() => '?').join(', ');
    // Sends first: their row locks make a concurrent report either finish before (its history
    // is then deleted below) or find no send afterwards, so no history is left behind.
    const { affected } = await this.db.exec(`DELETE FROM sends WHERE id_sending IN (${marks})`, rows.map((r) => Number(r.id_sending)));
    await this.db.exec(`DELETE FROM send_history WHERE send_id IN (${marks})`, rows.map((r) => r.id));
    return affected;
  }
}

function toLockedSend(row: SendRow): LockedSend {
  return {
    id: row.id,
    idSending: Number(row.id_sending),
    accountId: Number(row.account_id),
    email: row.email,
    sendingType: Number(row.sending_type),
    status: row.status,
    diagCode: row.diag_code,
    bounceType: row.bounce_type,
    createdAt: ms(row.created_at)!,
  };
}

function toSendWithHistory(rows: LookupRow[]): SendWithHistory | null {
  if (rows.length === 0) return null;
  const [row] = rows;
  const history: HistoryEntry[] = rows
    .filter((r) => r.h_status !== null)
    .map((r) => ({ status: r.h_status!, at: ms(r.h_at)!, diagCode: r.h_diag_code, bounceType: r.h_bounce_type }))
    .sort((a, b) => a.at.getTime() - b.at.getTime() || statusRank(a.status) - statusRank(b.status) || (a.diagCode ?? '').localeCompare(b.diagCode ?? ''));
  return {
    ...toLockedSend(row),
    scheduledAt: ms(row.scheduled_at),
    createdAt: ms(row.created_at)!,
    updatedAt: ms(row.updated_at)!,
    history,
  };
}
