import { sleep } from './waiting';

/**
 * Runs `probe` (assertions, or a read that throws until ready) until it stops throwing, and
 * returns its value. After `timeoutMs` the last error is rethrown, so a failing test shows the
 * assertion that never came true rather than a bare timeout.
 */
export async function eventually<T>(probe: () => T | Promise<T>, timeoutMs = 5000, intervalMs = 20): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await probe();
    } catch (error) {
      if (Date.now() >= deadline) {
        if (error instanceof Error) error.message = `still failing after ${timeoutMs} ms: ${error.message}`;
        throw error;
      }
      await sleep(intervalMs);
    }
  }
}
