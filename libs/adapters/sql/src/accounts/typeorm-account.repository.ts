import { Account, AccountRepository, ActiveApiKey, ApiKeyRecord, ApiKeyRepository } from '../../../../accounts/src';
import { TypeormDatabase } from '../typeorm-database';

interface AccountRow {
  id: number | string;
  name: string;
  created_at: number | string;
}

interface ApiKeyRow {
  id: string;
  account_id: number | string;
  key_hash: string;
  hint: string;
  prefix: string | null;
  created_at: number | string;
  revoked_at: number | string | null;
  last_used_at: number | string | null;
}

const toAccount = (row: AccountRow): Account => ({ id: Number(row.id), name: row.name, createdAt: new Date(Number(row.created_at)) });
const msOrNull = (value: number | string | null): Date | null => (value === null ? null : new Date(Number(value)));

const toApiKey = (row: ApiKeyRow): ApiKeyRecord => ({
  id: row.id,
  accountId: Number(row.account_id),
  keyHash: row.key_hash,
  hint: row.hint,
  prefix: row.prefix,
  createdAt: new Date(Number(row.created_at)),
  revokedAt: msOrNull(row.revoked_at),
  lastUsedAt: msOrNull(row.last_used_at),
});

/** Accounts whose deletion has started (`deleted_at` set) are invisible to every read. */
export class TypeormAccountRepository extends AccountRepository {
  constructor(private readonly db: TypeormDatabase) {
    super();
  }

  async create(name: string, createdAt: Date): Promise<Account> {
    const { insertId } = await this.db.exec('INSERT INTO accounts (name, created_at) VALUES (?, ?)', [name, createdAt.getTime()]);
    return { id: Number(insertId), name, createdAt };
  }

  async findById(id: number): Promise<Account | null> {
    if (!Number.isSafeInteger(id)) return null;
    const [row] = await this.db.query<AccountRow>('SELECT id, name, created_at FROM accounts WHERE id = ? AND deleted_at IS NULL', [id]);
    return row ? toAccount(row) : null;
  }

  async list(afterId: number, limit: number): Promise<Account[]> {
    const rows = await this.db.query<AccountRow>('SELECT id, name, created_at FROM accounts WHERE id > ? AND deleted_at IS NULL ORDER BY id LIMIT ?', [afterId, limit]);
    return rows.map(toAccount);
  }
}

export class TypeormApiKeyRepository extends ApiKeyRepository {
  constructor(private readonly db: TypeormDatabase) {
    super();
  }

  async insert(key: ApiKeyRecord): Promise<void> {
    await this.db.exec('INSERT INTO api_keys (id, account_id, key_hash, hint, prefix, created_at, revoked_at, last_used_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [
      key.id,
      key.accountId,
      key.keyHash,
      key.hint,
      key.prefix,
      key.createdAt.getTime(),
      key.revokedAt?.getTime() ?? null,
      key.lastUsedAt?.getTime() ?? null,
    ]);
  }

  async findActiveByHash(keyHash: string): Promise<ActiveApiKey | null> {
    const [row] = await this.db.query<AccountRow & { key_id: string }>(
      'SELECT k.id AS key_id, a.id, a.name, a.created_at FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ? AND k.revoked_at IS NULL AND a.deleted_at IS NULL',
      [keyHash],
    );
    return row ? { keyId: row.key_id, account: toAccount(row) } : null;
  }

  async revoke(accountId: number, keyId: string, at: Date): Promise<boolean> {
    const { affected } = await this.db.exec('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND account_id = ? AND revoked_at IS NULL', [at.getTime(), keyId, accountId]);
    return affected > 0;
  }

  async listActive(accountId: number): Promise<ApiKeyRecord[]> {
    const rows = await this.db.query<ApiKeyRow>(
      'SELECT id, account_id, key_hash, hint, prefix, created_at, revoked_at, last_used_at FROM api_keys WHERE account_id = ? AND revoked_at IS NULL ORDER BY created_at, id',
      [accountId],
    );
    return rows.map(toApiKey);
  }

  async recordUse(keyId: string, at: Date, unlessAfter: Date): Promise<void> {
    await this.db.exec('UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at <= ?)', [at.getTime(), keyId, unlessAfter.getTime()]);
  }
}
