import { isOnCalendar } from '../../kernel/src';
import { invalidWebhookParameter } from './event-webhooks.errors';

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** An ISO 8601 timestamp with a time zone (a query's or body's `since`); invalid_parameter otherwise. */
export function parseInstant(value: unknown, field = 'since'): Date {
  const date = typeof value === 'string' && ISO_INSTANT.test(value) && isOnCalendar(value) ? new Date(value) : null;
  if (!date || Number.isNaN(date.getTime())) throw invalidWebhookParameter(`${field} must be an ISO 8601 timestamp with a time zone, e.g. 2025-11-22T00:00:00Z`);
  return date;
}
