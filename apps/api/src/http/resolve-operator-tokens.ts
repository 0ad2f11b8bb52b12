import type { AppConfig } from '../../../../config/load-config';
import { generateToken } from '../../../../libs/kernel/src/credentials';
import { OperatorTokens } from './operator-tokens';

/**
 * Uses ADMIN_TOKEN / INTERNAL_TOKEN when set; otherwise generates one for this run and prints it
 * once (to stderr, not the log stream), saying so, so that `npm start` works with no setup.
 */
export function resolveOperatorTokens(config: AppConfig, print: (line: string) => void): OperatorTokens {
  const admin = config.auth.adminToken ?? announce('ADMIN_TOKEN', generateToken(), print);
  const internal = config.auth.internalToken ?? announce('INTERNAL_TOKEN', generateToken(), print);
  return new OperatorTokens(admin, internal, config.auth.metricsToken);
}

function announce(name: string, token: string, print: (line: string) => void): string {
  print(`${name} was not set: generated one for this run (shown once, set ${name} to keep a fixed one): ${token}`);
  return token;
}
