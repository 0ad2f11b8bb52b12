import { randomBytes } from 'node:crypto';
import { TypeormDatabase } from './typeorm-database';

export const INSTALLATION_KEY_NAME = 'secrets_key';

/**
 * The key that seals stored secrets when SECRETS_KEY is not set: generated once per
 * installation and kept in the database, so every process of the installation agrees on it.
 * It keeps secrets out of plain sight in dumps and logs, not from someone holding the whole
 * database; the server warns at start until SECRETS_KEY is set.
 */
export async function loadOrCreateInstallationKey(db: TypeormDatabase, now: number): Promise<Buffer> {
  await db.exec(`INSERT INTO installation_settings (name, value, created_at) VALUES (?, ?, ?)${db.skipDuplicates('name')}`, [
    INSTALLATION_KEY_NAME,
    randomBytes(32).toString('base64'),
    now,
  ]);
  return (await loadInstallationKey(db))!;
}

/** The self-kept key if the installation has one (it ran without SECRETS_KEY and was not resealed since). */
export async function loadInstallationKey(db: TypeormDatabase): Promise<Buffer | null> {
  const [row] = await db.query<{ value: string }>('SELECT value FROM installation_settings WHERE name = ?', [INSTALLATION_KEY_NAME]);
  return row ? Buffer.from(row.value, 'base64') : null;
}
