import type { Logger } from 'pino';

/**
 * SIGTERM or SIGINT closes the app once (its shutdown hooks stop work, give in-flight calls the
 * grace and release the rest), then the process exits 0: a stop asked for and done is a success
 * to a supervisor. A second signal while closing is ignored; the supervisor's kill timeout decides.
 */
export function stopOnSignals(app: { close(): Promise<void> }, logger: Logger, label: string, beforeClose: () => void = () => undefined): void {
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, `${label} stopping`);
    beforeClose();
    try {
      await app.close();
    } catch (error) {
      logger.error({ err: error }, `${label}: shutdown failed`);
      process.exit(1);
    }
    process.exit(0);
  };
  process.on('SIGTERM', (signal) => void stop(signal));
  process.on('SIGINT', (signal) => void stop(signal));
}
