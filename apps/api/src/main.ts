import 'reflect-metadata';
import { loadConfigOrExit } from '../../../config/load-config-or-exit';
import { createLogger } from '../../../libs/adapters/logging/logger';
import { assertPortFree } from '../../../libs/adapters/runtime/assert-port-free';
import { stopOnSignals } from '../../../libs/adapters/runtime/stop-on-signals';
import { warnWithoutSecretsKey } from '../../../libs/adapters/runtime/warn-without-secrets-key';
import { createApiApp } from './create-api-app';
import { ShutdownState } from './ops/shutdown-state';
import { resolveOperatorTokens } from './http/resolve-operator-tokens';

/**
 * Connections the kernel completes while the event loop is busy wait in the listen queue. Node's
 * default of 511 overflowed when 1,000 clients connected at once (thousands of handshakes dropped,
 * each costing its client a SYN retry after 1, 3 or 7 s). The kernel caps it at net.core.somaxconn.
 */
const LISTEN_BACKLOG = 4096;

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createLogger(config.runtime.logLevel);
  const tokens = resolveOperatorTokens(config, (line) => process.stderr.write(`${line}\n`));
  warnWithoutSecretsKey(config, logger);
  // Before the app exists: it starts its dispatcher at init, which must take no work in a process
  // that cannot serve.
  await assertPortFree(config.http.port, 'PORT');
  const app = await createApiApp({ config, tokens, logger });
  stopOnSignals(app, logger, 'api', () => app.get(ShutdownState).begin());
  try {
    await app.listen({ port: config.http.port, host: '0.0.0.0', backlog: LISTEN_BACKLOG });
  } catch (error) {
    // Taken meanwhile: hand back whatever the dispatcher took before exiting.
    await app.close();
    throw error;
  }
  const base = config.http.publicBaseUrl;
  const urls = { api: base, dashboard: `${base}/app`, docs: `${base}/docs`, metrics: `${base}/metrics` };
  logger.info(
    { port: config.http.port, storage: config.storage.kind, queue: config.queue.kind, dispatcher: config.runtime.dispatcherEnabled, ...urls },
    `api listening on port ${config.http.port}: API ${urls.api}, dashboard ${urls.dashboard}, docs ${urls.docs}, metrics ${urls.metrics}`,
  );
}

void main().catch((error: unknown) => {
  process.stderr.write(`start-up failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
