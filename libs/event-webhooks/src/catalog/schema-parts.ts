/** The vocabulary of the catalog's schemas: the definition type and the small builders every type uses. */

export type JsonSchema = Record<string, unknown>;

export interface EventTypeDefinition {
  type: string;
  group: EventGroup;
  description: string;
  schema: JsonSchema;
  /** A valid `data`, used by the `test` route to send a sample event. */
  example: Record<string, unknown>;
  /** Emitted by the server itself about a webhook (CONTRACT §9.1): producers cannot publish it. */
  operational?: true;
}

export type EventGroup = 'contact' | 'list' | 'tag' | 'segment' | 'email' | 'campaign' | 'sms' | 'import' | 'credits' | 'webhook';

export const SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';
/** The time every example uses. */
export const AT = '2025-11-22T02:00:00.000Z';

export const id = (description: string) => ({ type: 'integer', minimum: 1, description });
export const timestamp = (description: string) => ({ type: 'string', format: 'date-time', description });
export const nullable = (schema: Record<string, unknown>) => ({ ...schema, type: [schema.type as string, 'null'] });
export const count = (description: string) => ({ type: 'integer', minimum: 0, description });

/** A closed object schema: every property required unless named in `optional`. */
export function object(properties: Record<string, unknown>, optional: string[] = []): JsonSchema {
  return {
    $schema: SCHEMA_DIALECT,
    type: 'object',
    properties,
    required: Object.keys(properties).filter((name) => !optional.includes(name)),
    additionalProperties: false,
  };
}
