import Ajv2020, { ErrorObject, ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { EVENT_TYPES, EventTypeDefinition } from './event-types';

export type DataCheck = { ok: true } | { ok: false; message: string };

/**
 * The event types a webhook can subscribe to and a producer can emit, with their `data` schemas
 * compiled once at construction (intake validates every event against them).
 */
export class EventCatalog {
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly byType = new Map<string, EventTypeDefinition>();

  constructor(readonly definitions: readonly EventTypeDefinition[] = EVENT_TYPES) {
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: false });
    addFormats(ajv);
    for (const definition of definitions) {
      this.byType.set(definition.type, definition);
      this.validators.set(definition.type, ajv.compile(definition.schema));
    }
  }

  has(type: string): boolean {
    return this.byType.has(type);
  }

  get(type: string): EventTypeDefinition | undefined {
    return this.byType.get(type);
  }

  checkData(type: string, data: unknown): DataCheck {
    const validate = this.validators.get(type);
    if (!validate) return { ok: false, message: `unknown event type ${JSON.stringify(type)}` };
    if (validate(data)) return { ok: true };
    return { ok: false, message: describe(validate.errors ?? []) };
  }
}

function describe(errors: ErrorObject[]): string {
  const [first] = errors;
  if (!first) return 'data does not match the schema of its type';
  const where = `data${first.instancePath.replace(/\//g, '.')}`;
  if (first.keyword === 'additionalProperties') {
    return `${where} must not have property ${JSON.stringify((first.params as { additionalProperty: string }).additionalProperty)}`;
  }
  return `${where} ${first.message ?? 'is invalid'}`;
}
