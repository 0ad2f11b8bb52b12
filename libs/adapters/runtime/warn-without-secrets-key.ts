import type { Logger } from 'pino';
import type { AppConfig } from '../../../config/load-config';

/** Every process that opens stored secrets (the API, each dispatcher) says so when SECRETS_KEY is unset. */
export function warnWithoutSecretsKey(config: AppConfig, logger: Logger): void {
  if (config.secrets.keys.length > 0) return;
  logger.warn(
    'SECRETS_KEY is not set: stored secrets are sealed with a key kept in the database itself, which does not protect them from anyone holding the database; set SECRETS_KEY (32 bytes, hex or base64) in production',
  );
}
