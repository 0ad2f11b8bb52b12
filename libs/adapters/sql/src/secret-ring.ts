import { randomBytes } from 'node:crypto';
import { DomainError, SecretBox, StoredSecrets } from '../../../kernel/src';
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
  let own = await loadInstallationKey(db);
  // Without SECRETS_KEY the installation keeps a key of its own, made only while nothing is stored:
  // a key made now would open none of what is, and would stay behind after the refusal below.
  if (!own && configuredKeys.length === 0 && !(await storesAnySecret(db))) own = await loadOrCreateInstallationKey(db, nowMs);
  const keys = [...configuredKeys, ...(own ? [own] : [])];
  // No key at all (then something is stored): a fresh key opens nothing, so every secret counts below.
  const box = new SecretBox(keys.length > 0 ? keys : [randomBytes(32)]);
  const unopenable = await storedSecrets(db, box).countUnopenable();
  if (unopenable > 0) {
    throw new DomainError(
      'invalid_parameter',
      `SECRETS_KEY: ${unopenable} sealed value(s) (secrets, signing keys, custom headers) open with none of the keys (SECRETS_KEY${own ? ' and the self-kept key' : ''}); ` +
        'put the key that sealed them back in SECRETS_KEY (keys are comma-separated, newest first)',
    );
  }
  return box;
}

async function storesAnySecret(db: TypeormDatabase): Promise<boolean> {
  const store = new TypeormSealedSecretStore(db);
  for (const place of store.places()) if ((await store.page(place, null, 1)).length > 0) return true;
  return false;
}

export function storedSecrets(db: TypeormDatabase, box: SecretBox): StoredSecrets {
  return new StoredSecrets(new TypeormSealedSecretStore(db), box);
}
