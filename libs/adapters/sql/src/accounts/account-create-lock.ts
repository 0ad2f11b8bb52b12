import { readForUpdate } from '../read-for-update';
import { TypeormDatabase } from '../typeorm-database';

/**
 * Makes the account's other creates wait until this unit of work commits, so that a count under a
 * per-account limit and the insert after it cannot be raced past (without it, concurrent creates
 * on MySQL all count the same number).
 */
export async function lockAccountForCreate(db: TypeormDatabase, accountId: number): Promise<void> {
  await readForUpdate(db, { table: 'accounts', columns: 'id', where: 'id = ?', params: [accountId] });
}
