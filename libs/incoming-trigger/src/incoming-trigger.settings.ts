import { RateLimit } from './token-bucket-limiter';

/** Per-URL rate limit of POST /hooks/{token} when none is configured: bursts of 60, then 10 per second. */
export const DEFAULT_TRIGGER_RATE_LIMIT: RateLimit = { burst: 60, perSecond: 10 };

/** What the incoming-trigger lib reads from the configuration (provided from APP_CONFIG). */
export class IncomingTriggerSettings {
  constructor(readonly rateLimit: RateLimit = DEFAULT_TRIGGER_RATE_LIMIT) {}
}

/** Largest trigger body, in bytes (CONTRACT §6: 256 KB). */
export const TRIGGER_BODY_LIMIT_BYTES = 262_144;
