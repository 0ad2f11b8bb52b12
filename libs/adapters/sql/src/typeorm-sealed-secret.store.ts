import { countPreviousSecrets } from '../../../event-webhooks/src/webhooks/previous-secrets';
import { SealedSecret, SealedSecretStore } from '../../../kernel/src';
import { INSTALLATION_KEY_NAME } from './installation-key';
import { TypeormDatabase } from './typeorm-database';

interface SealedColumn {
  table: string;
  column: string;
  /** How many secrets one opened value holds (SealedSecretStore.secretsIn). */
  secretsIn: (opened: string) => number;
}

const ONE = () => 1;

/** Every column that holds a value sealed with the SecretBox: a new one must be added here. */
const SEALED_COLUMNS: Record<string, SealedColumn> = {
  'webhooks.secret_sealed': { table: 'webhooks', column: 'secret_sealed', secretsIn: ONE },
  'webhooks.previous_secret_sealed': { table: 'webhooks', column: 'previous_secret_sealed', secretsIn: countPreviousSecrets },
  'webhook_targets.signing_key_sealed': { table: 'webhook_targets', column: 'signing_key_sealed', secretsIn: ONE },
  'webhook_targets.headers_sealed': { table: 'webhook_targets', column: 'headers_sealed', secretsIn: () => 0 },
};

export class TypeormSealedSecretStore extends SealedSecretStore {
  constructor(private readonly db: TypeormDatabase) {
    super();
  }

  places(): readonly string[] {
    return Object.keys(SEALED_COLUMNS);
  }

  async page(place: string, afterId: string | null, limit: number): Promise<SealedSecret[]> {
    const { table, column } = this.columnOf(place);
    const rows = await this.db.query<{ id: string; sealed: string }>(
      `SELECT id, ${column} AS sealed FROM ${table} WHERE ${column} IS NOT NULL${afterId === null ? '' : ' AND id > ?'} ORDER BY id LIMIT ${Math.floor(limit)}`,
      afterId === null ? [] : [afterId],
    );
    return rows.map((row) => ({ place, id: row.id, sealed: row.sealed }));
  }

  async replace(secret: SealedSecret, resealed: string): Promise<boolean> {
    const { table, column } = this.columnOf(secret.place);
    const { affected } = await this.db.exec(`UPDATE ${table} SET ${column} = ? WHERE id = ? AND ${column} = ?`, [resealed, secret.id, secret.sealed]);
    return affected === 1;
  }

  async forgetInstallationKey(): Promise<boolean> {
    const { affected } = await this.db.exec('DELETE FROM installation_settings WHERE name = ?', [INSTALLATION_KEY_NAME]);
    return affected > 0;
  }

  secretsIn(place: string, opened: string): number {
    return this.columnOf(place).secretsIn(opened);
  }

  private columnOf(place: string): SealedColumn {
    const found = SEALED_COLUMNS[place];
    if (!found) throw new Error(`no sealed column ${place}`);
    return found;
  }
}
