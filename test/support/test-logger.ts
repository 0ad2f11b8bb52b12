/**
 * A logger for adapters under test: keeps every line for assertions and prints only errors, so
 * the warnings a test provokes on purpose (a crashed worker, a handler that throws) stay quiet.
 * TEST_LOG_WARN=1 prints the warnings too, with a timestamp, when a suite needs debugging.
 */
export class TestLogger {
  readonly lines: Array<{ level: 'log' | 'warn' | 'error'; message: string }> = [];

  log(message: unknown): void {
    this.lines.push({ level: 'log', message: String(message) });
  }

  warn(message: unknown): void {
    this.lines.push({ level: 'warn', message: String(message) });
    if (process.env.TEST_LOG_WARN) console.warn(`${new Date().toISOString()} ${String(message)}`);
  }

  error(message: unknown): void {
    this.lines.push({ level: 'error', message: String(message) });
    console.error(String(message));
  }
}
