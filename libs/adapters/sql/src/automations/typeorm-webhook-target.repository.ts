import { SecretBox } from '../../../../kernel/src';
import { TargetUsage, WebhookTarget, WebhookTargetRepository } from '../../../../webhook-targets/src';
import { lockAccountForCreate } from '../accounts/account-create-lock';
import { placeholders } from '../event-webhooks/multi-row-insert';
import { TypeormDatabase } from '../typeorm-database';

interface TargetRow {
  id: string;
  account_id: number | string;
  name: string;
  url: string;
  /** '{}' once sealed; a row of an earlier release keeps its headers here until sealClearTargetHeaders. */
  headers: string;
  headers_sealed: string | null;
  signing_key_sealed: string | null;
  created_at: number | string;
  updated_at: number | string;
}

const COLUMNS = 'id, account_id, name, url, headers, headers_sealed, signing_key_sealed, created_at, updated_at';
const NO_HEADERS = '{}';

/**
 * Webhook targets in `webhook_targets` (migration 1732230003000). Custom header values (an
 * `Authorization` token, an API key) are stored sealed with the SecretBox, as signing keys are,
 * though the API shows them: at rest they are a credential to the customer's endpoint.
 */
export class TypeormWebhookTargetRepository extends WebhookTargetRepository {
  constructor(
    private readonly db: TypeormDatabase,
    private readonly box: SecretBox,
  ) {
    super();
  }

  async insert(target: WebhookTarget): Promise<void> {
    await this.db.exec(`INSERT INTO webhook_targets (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
      target.id,
      target.accountId,
      target.name,
      target.url,
      NO_HEADERS,
      this.sealed(target.headers),
      target.signingKeySealed,
      target.createdAt.getTime(),
      target.updatedAt.getTime(),
    ]);
  }

  async update(target: WebhookTarget): Promise<void> {
    await this.db.exec('UPDATE webhook_targets SET name = ?, url = ?, headers = ?, headers_sealed = ?, signing_key_sealed = ?, updated_at = ? WHERE id = ? AND account_id = ?', [
      target.name,
      target.url,
      NO_HEADERS,
      this.sealed(target.headers),
      target.signingKeySealed,
      target.updatedAt.getTime(),
      target.id,
      target.accountId,
    ]);
  }

  async findById(accountId: number, id: string): Promise<WebhookTarget | null> {
    const [row] = await this.db.query<TargetRow>(`SELECT ${COLUMNS} FROM webhook_targets WHERE id = ? AND account_id = ?`, [id, accountId]);
    return row ? this.toTarget(row) : null;
  }

  async holdExisting(accountId: number, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db.query<{ id: string }>(
      `SELECT id FROM webhook_targets WHERE account_id = ? AND id IN (${placeholders(ids)})${sharedLock(this.db)}`,
      [accountId, ...ids],
    );
    return new Set(rows.map((row) => row.id));
  }

  async listByAccount(accountId: number, afterId: string | null, limit: number): Promise<WebhookTarget[]> {
    const after = afterId === null ? '' : ' AND id > ?';
    const rows = await this.db.query<TargetRow>(`SELECT ${COLUMNS} FROM webhook_targets WHERE account_id = ?${after} ORDER BY id LIMIT ${Math.floor(limit)}`, afterId === null ? [accountId] : [accountId, afterId]);
    return rows.map((row) => this.toTarget(row));
  }

  async countByAccount(accountId: number): Promise<number> {
    await lockAccountForCreate(this.db, accountId);
    return Number((await this.db.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM webhook_targets WHERE account_id = ?', [accountId]))[0].n);
  }

  async delete(accountId: number, id: string): Promise<boolean> {
    return (await this.db.exec('DELETE FROM webhook_targets WHERE id = ? AND account_id = ?', [id, accountId])).affected > 0;
  }

  /** No headers: null, so that a target without any holds no sealed value to re-seal. */
  private sealed(headers: Record<string, string>): string | null {
    return Object.keys(headers).length === 0 ? null : this.box.seal(JSON.stringify(headers));
  }

  private toTarget(row: TargetRow): WebhookTarget {
    return {
      id: row.id,
      accountId: Number(row.account_id),
      name: row.name,
      url: row.url,
      headers: JSON.parse(row.headers_sealed === null ? row.headers : this.box.open(row.headers_sealed)) as Record<string, string>,
      signingKeySealed: row.signing_key_sealed,
      createdAt: new Date(Number(row.created_at)),
      updatedAt: new Date(Number(row.updated_at)),
    };
  }
}

/**
 * Seals the custom headers that rows of an earlier release keep in clear; run at every start once
 * the SecretBox is open (a no-op when none is left). Returns how many targets it sealed.
 */
export async function sealClearTargetHeaders(db: TypeormDatabase, box: SecretBox): Promise<number> {
  let sealed = 0;
  for (;;) {
    const rows = await db.query<{ id: string; headers: string }>(`SELECT id, headers FROM webhook_targets WHERE headers <> ? AND headers_sealed IS NULL ORDER BY id LIMIT 500`, [NO_HEADERS]);
    for (const row of rows) {
      const { affected } = await db.exec('UPDATE webhook_targets SET headers_sealed = ?, headers = ? WHERE id = ? AND headers = ? AND headers_sealed IS NULL', [
        box.seal(row.headers),
        NO_HEADERS,
        row.id,
        row.headers,
      ]);
      sealed += affected;
    }
    if (rows.length < 500) return sealed;
  }
}

/** Answers from `workflow_targets`, which the workflow repository keeps in step with each workflow's steps. */
export class TypeormTargetUsage extends TargetUsage {
  constructor(private readonly db: TypeormDatabase) {
    super();
  }

  async workflowsUsing(accountId: number, targetId: string): Promise<Array<{ id: string; name: string }>> {
    return this.db.query<{ id: string; name: string }>(
      `SELECT w.id, w.name FROM workflow_targets wt JOIN workflows w ON w.id = wt.workflow_id WHERE wt.target_id = ? AND wt.account_id = ? ORDER BY w.id${sharedLock(this.db)}`,
      [targetId, accountId],
    );
  }
}

/**
 * A target's delete and a workflow naming it lock each other out on MySQL: a locking read sees the
 * latest commit (not the transaction's snapshot) and holds what it read, and the gap it read, until
 * the end; each side then waits for the other, or InnoDB picks one to roll back and it runs again
 * (TypeormDatabase retries deadlocks). SQLite runs one transaction at a time.
 */
function sharedLock(db: TypeormDatabase): string {
  return db.dialect === 'mysql' && db.inTransaction() ? ' LOCK IN SHARE MODE' : '';
}
