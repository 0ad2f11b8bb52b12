import { TypeormDatabase } from '../typeorm-database';

/**
 * Makes the account's other creates wait until this unit of work commits, so that a count under a
 * per-account limit and the insert after it cannot be raced past. MySQL takes the account row's
 * lock (without it, concurrent creates all count the same number); SQLite runs one writer at a time.
 */
export async function lockAccountForCreate(db: TypeormDatabase, accountId: number): Promise<void> {
  if (db.dialect === 'mysql') await db.query('SELECT id FROM accounts WHERE id = ? FOR UPDATE', [accountId]);
}
