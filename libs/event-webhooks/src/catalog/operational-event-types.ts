import { AT, count, EventTypeDefinition, nullable, object, timestamp } from './schema-parts';

const webhookId = { type: 'string', pattern: '^wh_[A-Za-z0-9]+$', description: 'Identifier of the webhook this event is about', examples: ['wh_01jd2x7q9m3k8p4r6t1v5w0y2z'] };
const webhookUrl = { type: 'string', maxLength: 2048, description: 'URL of that webhook' };
const failures = count('Consecutive failed attempts of that webhook');

/** The server's own events about a webhook (CONTRACT §9.1), delivered to the account's other webhooks. */
export const OPERATIONAL_EVENT_TYPES: readonly EventTypeDefinition[] = [
  {
    type: 'webhook.failing',
    group: 'webhook',
    description: "A webhook's consecutive failures reached half of the number that disables it; once per run of failures.",
    schema: object({
      webhookId,
      url: webhookUrl,
      consecutiveFailures: failures,
      lastAttempt: {
        type: 'object',
        description: 'The failed attempt that reached the threshold',
        properties: {
          at: timestamp('When the attempt started'),
          httpStatus: nullable({ type: 'integer', minimum: 100, maximum: 599, description: 'HTTP status answered, null when none arrived' }),
          error: nullable({ type: 'string', maxLength: 32, description: 'Transport error (timeout, connection_refused, ...), null when an answer arrived' }),
        },
        required: ['at', 'httpStatus', 'error'],
        additionalProperties: false,
      },
    }),
    example: { webhookId: 'wh_01JD0000000000000000000000', url: 'https://example.com/hooks', consecutiveFailures: 5, lastAttempt: { at: AT, httpStatus: 500, error: null } },
    operational: true,
  },
  {
    type: 'webhook.disabled',
    group: 'webhook',
    description: 'A webhook was disabled, by its consecutive failures or by hand; it gets no deliveries until it is enabled.',
    schema: object({
      webhookId,
      url: webhookUrl,
      reason: { type: 'string', enum: ['consecutive_failures', 'manual'], description: 'Why it was disabled' },
      consecutiveFailures: failures,
      disabledAt: timestamp('When it was disabled'),
    }),
    example: { webhookId: 'wh_01JD0000000000000000000000', url: 'https://example.com/hooks', reason: 'consecutive_failures', consecutiveFailures: 10, disabledAt: AT },
    operational: true,
  },
];
