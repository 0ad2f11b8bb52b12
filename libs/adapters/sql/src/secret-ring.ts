import { SecretBox, StoredSecrets } from '../../../kernel/src';
import { loadInstallationKey, loadOrCreateInstallationKey } from './installation-key';
import { TypeormDatabase } from './typeorm-database';
import { TypeormSealedSecretStore } from './typeorm-sealed-secret.store';

/**
 * The server's SecretBox: the keys of SECRETS_KEY (newest first), then the key the installation
 * kept for itself while it exists (created when SECRETS_KEY is unset), so setting SECRETS_KEY keeps
 * every existing secret working until `secrets reseal`. Refuses (throws, naming SECRETS_KEY) when a
 * stored secret opens with none of them: such a server could accept events it cannot sign.
 */
export async function openSecretBox(db: TypeormDatabase, configuredKeys: readonly Buffer[], nowMs: number): Promise<SecretBox> {
  const own = configuredKeys.length === 0 ? await loadOrCreateInstallationKey(db, nowMs) : await loadInstallationKey(db);
  const box = new SecretBox([...configuredKeys, ...(own ? [own] : [])]);
  const unopenable = await storedSecrets(db, box).countUnopenable();
  if (unopenable > 0) {
    throw new Error(
      `SECRETS_KEY: ${unopenable} stored secret(s) open with none of the keys (SECRETS_KEY${own ? ' and the self-kept key' : ''}); ` +
        'put the key that sealed them back in SECRETS_KEY (keys are comma-separated, newest first)',
    );
  }
  return box;
}

export function storedSecrets(db: TypeormDatabase, box: SecretBox): StoredSecrets {
  return new StoredSecrets(new TypeormSealedSecretStore(db), box);
}
