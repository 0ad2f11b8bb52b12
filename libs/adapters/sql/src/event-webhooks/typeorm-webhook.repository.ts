import { ApiFamily, DisabledReason, Webhook, WebhookState } from '../../../../event-webhooks/src/webhooks/webhook';
import { AttemptTally, FailureCount, SecretRotation, WebhookPause, WebhookRepository, WebhookSettingsChange } from '../../../../event-webhooks/src/webhooks/webhook.repository';
import { lockAccountForCreate } from '../accounts/account-create-lock';
import { readForUpdate } from '../read-for-update';
import { TypeormDatabase } from '../typeorm-database';
import { dateOrNull, placeholders } from './multi-row-insert';

interface WebhookRow {
  id: string;
  account_id: number | string;
  url: string;
  events: string;
  description: string | null;
  state: WebhookState;
  api_version: ApiFamily;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: number | string | null;
  consecutive_failures: number | string;
  disabled_at: number | string | null;
  disabled_reason: DisabledReason | null;
  created_at: number | string;
  updated_at: number | string;
  paused_until: number | string | null;
}

/** The columns a new webhook is written with (a pause comes later, from a receiver: pauseUntil). */
const COLUMNS =
  'id, account_id, url, events, description, state, api_version, secret_sealed, previous_secret_sealed, previous_secret_expires_at, consecutive_failures, disabled_at, disabled_reason, created_at, updated_at';
const READ_COLUMNS = `${COLUMNS}, paused_until`;

function toWebhook(row: WebhookRow): Webhook {
  return {
    id: row.id,
    accountId: Number(row.account_id),
    url: row.url,
    events: JSON.parse(row.events) as string[],
    description: row.description,
    state: row.state,
    apiVersion: row.api_version,
    consecutiveFailures: Number(row.consecutive_failures),
    disabledAt: dateOrNull(row.disabled_at),
    disabledReason: row.disabled_reason,
    createdAt: new Date(Number(row.created_at)),
    updatedAt: new Date(Number(row.updated_at)),
    sealedSecret: row.secret_sealed,
    sealedPreviousSecret: row.previous_secret_sealed,
    previousSecretExpiresAt: dateOrNull(row.previous_secret_expires_at),
    pausedUntil: dateOrNull(row.paused_until),
  };
}

export class TypeormWebhookRepository extends WebhookRepository {
  constructor(private readonly db: TypeormDatabase) {
    super();
  }

  /**
   * The count and the insert are one statement. On MySQL, creates for one account first queue on
   * the account's row lock: without it, two INSERT ... SELECT racing for the last slot each hold a
   * shared gap lock the other's insert waits for, a deadlock. SQLite runs one writer at a time.
   * Call inside a unit of work.
   */
  async insertWithinLimit(w: Webhook, maxPerAccount: number): Promise<boolean> {
    await lockAccountForCreate(this.db, w.accountId);
    const { affected } = await this.db.exec(
      `INSERT INTO webhooks (${COLUMNS})
       SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? FROM (SELECT COUNT(*) AS n FROM webhooks WHERE account_id = ?) existing WHERE existing.n < ?`,
      [
        w.id,
        w.accountId,
        w.url,
        JSON.stringify(w.events),
        w.description,
        w.state,
        w.apiVersion,
        w.sealedSecret,
        w.sealedPreviousSecret,
        w.previousSecretExpiresAt?.getTime() ?? null,
        w.consecutiveFailures,
        w.disabledAt?.getTime() ?? null,
        w.disabledReason,
        w.createdAt.getTime(),
        w.updatedAt.getTime(),
        w.accountId,
        maxPerAccount,
      ],
    );
    return affected === 1;
  }

  async findForAccount(accountId: number, id: string): Promise<Webhook | null> {
    const [row] = await this.db.query<WebhookRow>(`SELECT ${READ_COLUMNS} FROM webhooks WHERE id = ? AND account_id = ?`, [id, accountId]);
    return row ? toWebhook(row) : null;
  }

  async lockForAccount(accountId: number, id: string): Promise<Webhook | null> {
    const [row] = await readForUpdate<WebhookRow>(this.db, { table: 'webhooks', columns: READ_COLUMNS, where: 'id = ? AND account_id = ?', params: [id, accountId] });
    return row ? toWebhook(row) : null;
  }

  async findById(id: string): Promise<Webhook | null> {
    const [row] = await this.db.query<WebhookRow>(`SELECT ${READ_COLUMNS} FROM webhooks WHERE id = ?`, [id]);
    return row ? toWebhook(row) : null;
  }

  async listForAccount(accountId: number): Promise<Webhook[]> {
    return (await this.db.query<WebhookRow>(`SELECT ${READ_COLUMNS} FROM webhooks WHERE account_id = ? ORDER BY id`, [accountId])).map(toWebhook);
  }

  async listForAccounts(accountIds: number[]): Promise<Webhook[]> {
    if (accountIds.length === 0) return [];
    const rows = await this.db.query<WebhookRow>(`SELECT ${READ_COLUMNS} FROM webhooks WHERE account_id IN (${placeholders(accountIds)}) ORDER BY id`, accountIds);
    return rows.map(toWebhook);
  }

  async updateSettings(id: string, change: WebhookSettingsChange): Promise<void> {
    const set: Array<[string, unknown]> = [];
    if (change.url !== undefined) set.push(['url', change.url]);
    if (change.events !== undefined) set.push(['events', JSON.stringify(change.events)]);
    if (change.description !== undefined) set.push(['description', change.description]);
    set.push(['updated_at', change.updatedAt.getTime()]);
    await this.db.exec(`UPDATE webhooks SET ${set.map(([column]) => `${column} = ?`).join(', ')} WHERE id = ?`, [...set.map(([, value]) => value), id]);
  }

  async delete(id: string): Promise<boolean> {
    const { affected } = await this.db.exec('DELETE FROM webhooks WHERE id = ?', [id]);
    return affected > 0;
  }

  async enable(id: string, at: Date): Promise<void> {
    await this.db.exec("UPDATE webhooks SET state = 'enabled', consecutive_failures = 0, disabled_at = NULL, disabled_reason = NULL, updated_at = ? WHERE id = ?", [at.getTime(), id]);
  }

  async disable(id: string, at: Date, reason: DisabledReason, consecutiveFailures?: number): Promise<boolean> {
    const counter = consecutiveFailures === undefined ? '' : ', consecutive_failures = ?';
    const { affected } = await this.db.exec(
      `UPDATE webhooks SET state = 'disabled', disabled_at = ?, disabled_reason = ?, updated_at = ?${counter} WHERE id = ? AND state = 'enabled'`,
      [at.getTime(), reason, at.getTime(), ...(consecutiveFailures === undefined ? [] : [consecutiveFailures]), id],
    );
    return affected === 1;
  }

  async replaceSecret(id: string, rotation: SecretRotation, at: Date): Promise<boolean> {
    const { affected } = await this.db.exec(
      'UPDATE webhooks SET secret_sealed = ?, previous_secret_sealed = ?, previous_secret_expires_at = ?, updated_at = ? WHERE id = ? AND secret_sealed = ?',
      [rotation.sealedSecret, rotation.sealedPrevious, rotation.previousExpiresAt.getTime(), at.getTime(), id, rotation.replacing],
    );
    return affected === 1;
  }

  async pauseUntil(pauses: WebhookPause[]): Promise<void> {
    for (const { webhookId, until } of pauses) {
      await this.db.exec('UPDATE webhooks SET paused_until = ? WHERE id = ? AND (paused_until IS NULL OR paused_until < ?)', [until.getTime(), webhookId, until.getTime()]);
    }
  }

  /** One atomic increment, then a read of the row this transaction now holds. */
  async countDisabled(): Promise<number> {
    const [row] = await this.db.query<{ n: unknown }>("SELECT COUNT(*) AS n FROM webhooks WHERE state = 'disabled'");
    return Number(row?.n ?? 0);
  }

  async tallyAttempts(tallies: AttemptTally[], readBefore = new Map<string, FailureCount>()): Promise<Map<string, FailureCount>> {
    const counts = new Map<string, FailureCount>();
    const succeeded = tallies.filter((t) => t.failures === 0).map((t) => t.webhookId);
    if (succeeded.length > 0) {
      // Mostly the counter is 0 already: a plain read finds the few to reset, so batches of successes
      // do not queue behind each other on the webhook row's lock.
      const unread = succeeded.filter((id) => !readBefore.has(id));
      const read = unread.length > 0 ? new Map([...readBefore, ...(await this.failureCounts(unread))]) : readBefore;
      const restarted = succeeded.filter((id) => {
        const count = read.get(id);
        return count !== undefined && count.consecutiveFailures !== 0 && count.state === 'enabled';
      });
      if (restarted.length > 0) {
        await this.db.write(
          `UPDATE webhooks SET consecutive_failures = 0 WHERE id IN (${placeholders(restarted)}) AND consecutive_failures <> 0 AND state = 'enabled'`,
          restarted,
        );
      }
      for (const id of succeeded) {
        const count = read.get(id);
        if (count) counts.set(id, count.state === 'enabled' ? { consecutiveFailures: 0, state: count.state } : count);
      }
    }
    const failing = tallies.filter((t) => t.failures > 0);
    for (const t of failing) {
      const counter = t.reset ? '?' : 'consecutive_failures + ?';
      await this.db.write(`UPDATE webhooks SET consecutive_failures = ${counter} WHERE id = ? AND state = 'enabled'`, [t.failures, t.webhookId]);
    }
    if (failing.length === 0) return counts;
    for (const [id, count] of await this.failureCounts(failing.map((t) => t.webhookId))) counts.set(id, count);
    return counts;
  }

  async failureCounts(ids: string[]): Promise<Map<string, FailureCount>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.query<Pick<WebhookRow, 'id' | 'consecutive_failures' | 'state'>>(
      `SELECT id, consecutive_failures, state FROM webhooks WHERE id IN (${placeholders(ids)})`,
      ids,
    );
    return new Map(rows.map((r) => [r.id, { consecutiveFailures: Number(r.consecutive_failures), state: r.state }]));
  }
}
