import { readIsoInstant } from '../../kernel/src';
import { invalidWebhookParameter } from './event-webhooks.errors';

/** An ISO 8601 instant (a query's or body's `since`: libs/kernel's `readIsoInstant`); invalid_parameter otherwise. */
export function parseInstant(value: unknown, field = 'since'): Date {
  const instant = readIsoInstant(value);
  if (!instant.ok) throw invalidWebhookParameter(`${field} must be an ISO 8601 timestamp with a time zone, e.g. 2025-11-22T00:00:00Z, or a date (its midnight UTC)`);
  return instant.date;
}
