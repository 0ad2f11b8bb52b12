import { SecretBox } from '../../../../kernel/src';
import { TargetUsage, WebhookTarget, WebhookTargetRepository } from '../../../../webhook-targets/src';
import { lockAccountForCreate } from '../accounts/account-create-lock';
import { placeholders } from '../event-webhooks/multi-row-insert';
import { readForUpdate } from '../read-for-update';
import { TypeormDatabase } from '../typeorm-database';

interface TargetRow {
  id: string;
  account_id: number | string;
  name: string;
  url: string;
  /** The headers in clear: as an earlier release wrote them, and until the installation seals them; '{}' once sealed. */
  headers: string;
  headers_sealed: string | null;
  signing_key_sealed: string | null;
  created_at: number | string;
  updated_at: number | string;
}

const COLUMNS = 'id, account_id, name, url, headers, headers_sealed, signing_key_sealed, created_at, updated_at';
const NO_HEADERS = '{}';
/** In installation_settings once custom headers are written sealed (set by the migration on a new installation). */
export const HEADERS_SEALED_SETTING = 'target_headers_sealed';

/**
 * Webhook targets in `webhook_targets` (migration 1732230003000). Custom header values (an
 * `Authorization` token, an API key) are stored sealed with the SecretBox, as signing keys are,
 * though the API shows them: at rest they are a credential to the customer's endpoint.
 *
 * An installation upgraded from a release that kept them in clear goes on writing them in clear
 * (processes of that release may still run beside this one, reading only `headers`) until
 * `secrets reseal` seals them all (sealClearTargetHeaders) and marks the installation: writes are
 * sealed from then on. Reads take the clear value whenever there is one, since only a process of
 * the earlier release writes one once the installation is marked.
 */
export class TypeormWebhookTargetRepository extends WebhookTargetRepository {
  /** Once true, for good: the mark is never removed. */
  private sealing = false;

  constructor(
    private readonly db: TypeormDatabase,
    private readonly box: SecretBox,
  ) {
    super();
  }

  async insert(target: WebhookTarget): Promise<void> {
    const [headers, sealed] = await this.stored(target.headers, target.updatedAt);
    await this.db.exec(`INSERT INTO webhook_targets (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
      target.id,
      target.accountId,
      target.name,
      target.url,
      headers,
      sealed,
      target.signingKeySealed,
      target.createdAt.getTime(),
      target.updatedAt.getTime(),
    ]);
  }

  async update(target: WebhookTarget): Promise<void> {
    const [headers, sealed] = await this.stored(target.headers, target.updatedAt);
    await this.db.exec('UPDATE webhook_targets SET name = ?, url = ?, headers = ?, headers_sealed = ?, signing_key_sealed = ?, updated_at = ? WHERE id = ? AND account_id = ?', [
      target.name,
      target.url,
      headers,
      sealed,
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

  async lockById(accountId: number, id: string): Promise<WebhookTarget | null> {
    const [row] = await readForUpdate<TargetRow>(this.db, { table: 'webhook_targets', columns: COLUMNS, where: 'id = ? AND account_id = ?', params: [id, accountId] });
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

  /** The `headers` and `headers_sealed` values to write: sealed once the installation is marked (none: no sealed value to re-seal). */
  private async stored(headers: Record<string, string>, updatedAt: Date): Promise<[clear: string, sealed: string | null]> {
    this.sealing ||= await headersSealedHere(this.db);
    if (!this.sealing) return [JSON.stringify(headers), null];
    return [NO_HEADERS, Object.keys(headers).length === 0 ? null : sealHeaders(this.box, headers, updatedAt.getTime())];
  }

  /**
   * The clear value when there is one; else the sealed one, if it was written with the row's last
   * change: a process of an earlier release changes `headers` and `updated_at` only, so a sealed
   * value older than the row is what that change replaced (by no headers, `{}`), never to be sent.
   */
  private headersOf(row: TargetRow): Record<string, string> {
    if (row.headers !== NO_HEADERS || row.headers_sealed === null) return JSON.parse(row.headers) as Record<string, string>;
    const sealed = JSON.parse(this.box.open(row.headers_sealed)) as SealedHeaders;
    return sealed.at === Number(row.updated_at) ? sealed.headers : {};
  }

  private toTarget(row: TargetRow): WebhookTarget {
    return {
      id: row.id,
      accountId: Number(row.account_id),
      name: row.name,
      url: row.url,
      headers: this.headersOf(row),
      signingKeySealed: row.signing_key_sealed,
      createdAt: new Date(Number(row.created_at)),
      updatedAt: new Date(Number(row.updated_at)),
    };
  }
}

/** What `headers_sealed` holds, sealed: the headers and the `updated_at` of the change that wrote them. */
interface SealedHeaders {
  at: number;
  headers: Record<string, string>;
}

function sealHeaders(box: SecretBox, headers: Record<string, string>, at: number): string {
  return box.seal(JSON.stringify({ at, headers } satisfies SealedHeaders));
}

async function headersSealedHere(db: TypeormDatabase): Promise<boolean> {
  return (await db.query('SELECT 1 AS marked FROM installation_settings WHERE name = ?', [HEADERS_SEALED_SETTING])).length > 0;
}

/** From now on every process of this release writes custom headers sealed. */
export async function markHeadersSealed(db: TypeormDatabase, nowMs: number): Promise<void> {
  await db.exec(`INSERT INTO installation_settings (name, value, created_at) VALUES (?, ?, ?)${db.skipDuplicates('name')}`, [HEADERS_SEALED_SETTING, '1', nowMs]);
}

/**
 * Marks the installation (writes are sealed from then on, by every process of this release), then
 * seals the custom headers stored in clear, `secrets reseal`'s last step: run it once no process of
 * an earlier release is left, as they read clear headers only. Returns how many targets it sealed.
 */
export async function sealClearTargetHeaders(db: TypeormDatabase, box: SecretBox, nowMs: number): Promise<number> {
  await markHeadersSealed(db, nowMs);
  // SQLite: the clear values are zeroed where they were, free pages included, not only unlinked.
  if (db.dialect === 'sqlite') await db.query('PRAGMA secure_delete = ON');
  let sealed = 0;
  for (;;) {
    const rows = await db.query<{ id: string; headers: string; updated_at: number | string }>(
      `SELECT id, headers, updated_at FROM webhook_targets WHERE headers <> ? ORDER BY id LIMIT 500`,
      [NO_HEADERS],
    );
    for (const row of rows) {
      const { affected } = await db.exec('UPDATE webhook_targets SET headers_sealed = ?, headers = ? WHERE id = ? AND headers = ? AND updated_at = ?', [
        sealHeaders(box, JSON.parse(row.headers) as Record<string, string>, Number(row.updated_at)),
        NO_HEADERS,
        row.id,
        row.headers,
        row.updated_at,
      ]);
      sealed += affected;
    }
    if (rows.length < 500) break;
  }
  // The clear values' old copies: SQLite keeps them in the WAL until it is written over.
  if (sealed > 0 && db.dialect === 'sqlite') await db.query('PRAGMA wal_checkpoint(TRUNCATE)');
  return sealed;
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
