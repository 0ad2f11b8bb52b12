import { Account, AccountRepository, ApiKeyRecord, ApiKeyRepository } from '../../../../accounts/src';
import { TypeormDatabase } from '../typeorm-database';

interface AccountRow {
  id: number | string;
  name: string;
  created_at: number | string;
}

const toAccount = (row: AccountRow): Account => ({ id: Number(row.id), name: row.name, createdAt: new Date(Number(row.created_at)) });

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
    const [row] = await this.db.query<AccountRow>('SELECT id, name, created_at FROM accounts WHERE id = ?', [id]);
    return row ? toAccount(row) : null;
  }
}

export class TypeormApiKeyRepository extends ApiKeyRepository {
  constructor(private readonly db: TypeormDatabase) {
    super();
  }

  async insert(key: ApiKeyRecord): Promise<void> {
    await this.db.exec('INSERT INTO api_keys (id, account_id, key_hash, hint, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?)', [
      key.id,
      key.accountId,
      key.keyHash,
      key.hint,
      key.createdAt.getTime(),
      key.revokedAt?.getTime() ?? null,
    ]);
  }

  async findActiveAccountByHash(keyHash: string): Promise<Account | null> {
    const [row] = await this.db.query<AccountRow>(
      'SELECT a.id, a.name, a.created_at FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ? AND k.revoked_at IS NULL',
      [keyHash],
    );
    return row ? toAccount(row) : null;
  }

  async revoke(accountId: number, keyId: string, at: Date): Promise<boolean> {
    const [existing] = await this.db.query('SELECT id FROM api_keys WHERE id = ? AND account_id = ?', [keyId, accountId]);
    if (!existing) return false;
    await this.db.exec('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', [at.getTime(), keyId]);
    return true;
  }
}
