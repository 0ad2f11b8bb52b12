import type { SchemaObject } from '@nestjs/swagger';
import { DELIVERY_STATUSES, type ApiFamily } from '../../../../libs/event-webhooks/src';
import { snakeCase } from './family-casing';

/**
 * OpenAPI schemas of the event-webhooks responses, written once in camelCase and renamed for v2,
 * like the responses themselves.
 */
type Fields = Record<string, SchemaObject>;

const time = (description: string, nullable = false): SchemaObject => ({ type: 'string', format: 'date-time', description, nullable });

const WEBHOOK: Fields = {
  id: { type: 'string', example: 'wh_01jd2x7q9m3k8p4r6t1v5w0y2z' },
  url: { type: 'string', format: 'uri', maxLength: 2048, example: 'https://crm.example.com/hooks/service' },
  events: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 50, example: ['email.delivered', 'email.bounced'] },
  description: { type: 'string', nullable: true, maxLength: 500 },
  state: { type: 'string', enum: ['enabled', 'disabled'] },
  apiVersion: { type: 'string', enum: ['v3', 'v2'], description: 'The API family that created the webhook; its deliveries carry it as apiVersion' },
  consecutiveFailures: { type: 'integer', minimum: 0 },
  disabledAt: time('When it was disabled, null while enabled', true),
  disabledReason: {
    type: 'string',
    nullable: true,
    enum: ['consecutive_failures', 'manual', null],
    description: 'Why it is disabled: by the failure counter or by the disable route; null while enabled',
  },
  createdAt: time('Creation time'),
  updatedAt: time('Last change'),
};

const SECRET: Fields = {
  secret: { type: 'string', example: 'whsec_+ZGBPKBiq50JD6BjzQQrb3+3fjqhXExmh0LwsbTOhHg=', description: 'The signing secret. Shown once: store it now.' },
};

const ATTEMPT: Fields = {
  at: time('When the attempt started'),
  durationMs: { type: 'integer' },
  httpStatus: { type: 'integer', nullable: true, description: 'Null when no HTTP answer arrived' },
  error: {
    type: 'string',
    nullable: true,
    enum: ['timeout', 'connection_refused', 'dns', 'tls', 'blocked_address', 'invalid_url', 'connection_reset', null],
    description: 'Null whenever an HTTP answer arrived',
  },
  responseBody: { type: 'string', description: 'The start of the answer body, at most 4 KB' },
};

function object(fields: Fields, family: ApiFamily): SchemaObject {
  const cased = (key: string) => (family === 'v2' ? snakeCase(key) : key);
  return {
    type: 'object',
    required: Object.keys(fields).map(cased),
    properties: Object.fromEntries(Object.entries(fields).map(([key, schema]) => [cased(key), schema])),
  };
}

export function webhookSchemas(family: ApiFamily) {
  const webhook = object(WEBHOOK, family);
  const delivery = object(
    {
      id: { type: 'string', example: 'del_01jd2x7q9m3k8p4r6t1v5w0y2z' },
      eventId: { type: 'string', example: 'evt_01jd2x7q9m3k8p4r6t1v5w0y2z' },
      eventType: { type: 'string', example: 'email.delivered' },
      status: { type: 'string', enum: [...DELIVERY_STATUSES] },
      attempts: { type: 'array', items: object(ATTEMPT, family) },
      nextAttemptAt: time('When the next attempt is due, null when none is', true),
      createdAt: time('Creation time'),
    },
    family,
  );
  return {
    webhook,
    created: object({ ...WEBHOOK, ...SECRET }, family),
    list: object({ webhooks: { type: 'array', items: webhook } }, family),
    deliveryPage: object({ deliveries: { type: 'array', items: delivery }, nextCursor: { type: 'string', nullable: true, description: 'Pass as cursor for the next page; null on the last' } }, family),
    secret: object(SECRET, family),
    testAccepted: object({ eventId: { type: 'string', example: 'evt_01jd2x7q9m3k8p4r6t1v5w0y2z' } }, family),
    recovered: object({ count: { type: 'integer', minimum: 0 } }, family),
  };
}

export const ERROR_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['code', 'message'],
  properties: { code: { type: 'string', example: 'invalid_parameter' }, message: { type: 'string' } },
};

export const EVENT_TYPES_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['types'],
  properties: {
    types: {
      type: 'array',
      items: {
        type: 'object',
        required: ['type', 'group', 'description', 'schema'],
        properties: {
          type: { type: 'string', example: 'email.delivered' },
          group: { type: 'string', example: 'email' },
          description: { type: 'string' },
          schema: { type: 'object', description: 'JSON Schema (draft 2020-12) of the event data' },
        },
      },
    },
  },
};

/** The delivery body (CONTRACT §3), the same in both families. */
export const ENVELOPE_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['id', 'type', 'created', 'apiVersion', 'account', 'data'],
  properties: {
    id: { type: 'string', example: 'evt_01jd2x7q9m3k8p4r6t1v5w0y2z' },
    type: { type: 'string', example: 'email.delivered' },
    created: { type: 'integer', description: 'Unix seconds', example: 1732238400 },
    apiVersion: { type: 'string', enum: ['v3', 'v2'], description: 'The family of the route that serves it; the envelope is never snake_cased' },
    account: { type: 'object', required: ['id', 'name'], properties: { id: { type: 'integer', example: 42 }, name: { type: 'string', example: 'Acme' } } },
    data: { type: 'object', additionalProperties: true, description: 'Valid against the schema of its type in GET /v3/events/types' },
  },
};

export function eventFeedSchema(family: ApiFamily): SchemaObject {
  const next = family === 'v2' ? 'next_cursor' : 'nextCursor';
  return {
    type: 'object',
    required: ['events', next],
    properties: {
      events: { type: 'array', items: ENVELOPE_SCHEMA },
      [next]: { type: 'string', nullable: true, description: 'Pass as cursor for the next page; null on the last' },
    },
  };
}
