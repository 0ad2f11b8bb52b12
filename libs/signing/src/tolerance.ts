import { SignatureError } from './signature.errors';

/** Receivers reject a delivery when `|now - t| >= DEFAULT_TOLERANCE_SEC`. */
export const DEFAULT_TOLERANCE_SEC = 300;

export interface VerifyOptions {
  /** Reject when `|now - t| >= toleranceSec`. Default 300. Must be a positive number. */
  toleranceSec?: number;
  /** The current time in Unix **seconds** (not milliseconds). Default: the system clock. */
  now?: number;
}

export const unixNow = (): number => Math.floor(Date.now() / 1000);

/** Unix seconds as sent in `t=` and `webhook-timestamp`: digits only. */
export function parseUnixSeconds(text: string): number | undefined {
  if (!/^\d{1,15}$/.test(text)) return undefined;
  return Number(text);
}

export function assertTimestampSeconds(timestamp: number): void {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new RangeError(`timestamp must be a non-negative whole number of Unix seconds, got ${timestamp}`);
  }
}

export function assertWithinTolerance(timestamp: number, options: VerifyOptions = {}): void {
  const toleranceSec = options.toleranceSec ?? DEFAULT_TOLERANCE_SEC;
  if (!(toleranceSec > 0)) {
    throw new RangeError(`toleranceSec must be a positive number, got ${toleranceSec}`);
  }
  const now = options.now ?? unixNow();
  if (!Number.isFinite(now)) {
    throw new RangeError(`now must be a finite number of Unix seconds, got ${now}`);
  }
  if (Math.abs(now - timestamp) >= toleranceSec) {
    throw new SignatureError(
      'timestamp_out_of_tolerance',
      `Signature timestamp ${timestamp} is ${Math.abs(now - timestamp)} s away from now (tolerance ${toleranceSec} s)`,
    );
  }
}
