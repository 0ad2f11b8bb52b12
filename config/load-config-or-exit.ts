import { AppConfig, ConfigError, loadConfig } from './load-config';

/** Start-up: a bad variable stops the process with one line naming it and what it accepts. */
export function loadConfigOrExit(env: Record<string, string | undefined> = process.env): AppConfig {
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}
