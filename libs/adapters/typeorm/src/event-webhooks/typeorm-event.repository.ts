import { randomUUID } from 'node:crypto';
import { eventKey, EventRepository, StoredEvent } from '../../../../event-webhooks/src/intake/event.repository';
import { TypeormDatabase } from '../typeorm-database';
import { insertRows, placeholders } from './multi-row-insert';

const COLUMNS = ['id', 'account_id', 'type', 'created', 'received_at', 'intake_id', 'body_v3', 'body_v2'] as const;
const SELECT_CHUNK = 500;

export class TypeormEventRepository extends EventRepository {
  constructor(private readonly db: TypeormDatabase) {
    super();
  }

  /**
   * INSERT IGNORE skips ids already stored, including one a concurrent transaction is inserting (it
   * waits on that row's key). When fewer rows went in than were given, the rows tagged with this
   * call's intake id are the ones it inserted.
   */
  async insertNew(events: StoredEvent[]): Promise<Set<string>> {
    if (events.length === 0) return new Set();
    const intakeId = randomUUID();
    const rows = events.map((e) => [e.id, e.accountId, e.type, e.created, e.receivedAt.getTime(), intakeId, e.bodies.v3 ?? null, e.bodies.v2 ?? null]);
    const inserted = await insertRows(this.db, 'events', COLUMNS, rows, { ignore: true });
    const keys = new Set(events.map(eventKey));
    if (inserted === keys.size) return keys;
    const ids = [...new Set(events.map((e) => e.id))];
    const mine = new Set<string>();
    for (let i = 0; i < ids.length; i += SELECT_CHUNK) {
      const chunk = ids.slice(i, i + SELECT_CHUNK);
      const found = await this.db.query<{ id: string; account_id: number | string }>(
        `SELECT id, account_id FROM events WHERE id IN (${placeholders(chunk)}) AND intake_id = ?`,
        [...chunk, intakeId],
      );
      for (const row of found) mine.add(eventKey({ id: row.id, accountId: Number(row.account_id) }));
    }
    return mine;
  }

  async deleteCreatedBefore(cutoffSeconds: number, limit: number): Promise<number> {
    const events = await this.db.query<{ id: string; account_id: number | string }>(
      `SELECT id, account_id FROM events WHERE created < ? ORDER BY created LIMIT ${Math.max(1, Math.floor(limit))}`,
      [cutoffSeconds],
    );
    // Event ids are unique per account only: every delete names the account with the ids.
    const byAccount = new Map<number, string[]>();
    for (const row of events) byAccount.set(Number(row.account_id), [...(byAccount.get(Number(row.account_id)) ?? []), row.id]);
    for (const [accountId, ids] of byAccount) {
      const deliveries = (await this.db.query<{ id: string }>(`SELECT id FROM deliveries WHERE event_id IN (${placeholders(ids)}) AND account_id = ?`, [...ids, accountId])).map((row) => row.id);
      if (deliveries.length > 0) {
        await this.db.exec(`DELETE FROM delivery_attempts WHERE delivery_id IN (${placeholders(deliveries)})`, deliveries);
        await this.db.exec(`DELETE FROM deliveries WHERE id IN (${placeholders(deliveries)})`, deliveries);
      }
      await this.db.exec(`DELETE FROM events WHERE id IN (${placeholders(ids)}) AND account_id = ?`, [...ids, accountId]);
    }
    return events.length;
  }
}
