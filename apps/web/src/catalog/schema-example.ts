/**
 * An example value generated from a JSON Schema, for the event type picker: the schema's own
 * `examples`, `example`, `const`, `enum` or `default` when it has one, else a value of its `type`
 * that respects `format`, `minimum`, `minLength`, `minItems` and (from a few candidates) `pattern`.
 * Deterministic: the same schema always gives the same example.
 */
type Schema = Record<string, unknown>;

const MAX_DEPTH = 12;
const FORMATS: Record<string, string> = {
  'date-time': '2025-11-22T02:00:00.000Z',
  date: '2025-11-22',
  time: '02:00:00Z',
  email: 'jane@example.com',
  uri: 'https://example.com/',
  url: 'https://example.com/',
  hostname: 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  uuid: '123e4567-e89b-12d3-a456-426614174000',
};
/** Tried in turn against a `pattern`: common shapes of identifiers, phone numbers and codes. */
const PATTERN_CANDIDATES = ['example', '+33612345678', '12345', 'abc-123', 'EXAMPLE', 'a'];

export function exampleFromSchema(schema: unknown, name = 'value', depth = 0): unknown {
  if (!isSchema(schema) || depth > MAX_DEPTH) return null;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  for (const keyword of ['example', 'const', 'default']) if (keyword in schema) return schema[keyword];
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const alternatives = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(alternatives) && alternatives.length > 0) return exampleFromSchema(alternatives[0], name, depth + 1);
  switch (typeOf(schema)) {
    case 'object':
      return objectExample(schema, depth);
    case 'array': {
      const count = Math.max(1, numberOr(schema.minItems, 1));
      return Array.from({ length: count }, (_, i) => offset(exampleFromSchema(schema.items, name, depth + 1), i));
    }
    case 'string':
      return stringExample(schema, name);
    case 'integer':
      return Math.ceil(lowerBound(schema, 1));
    case 'number':
      return lowerBound(schema, 1.5);
    case 'boolean':
      return true;
    default:
      return null;
  }
}

function objectExample(schema: Schema, depth: number): Record<string, unknown> {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  return Object.fromEntries(Object.entries(properties).map(([key, property]) => [key, exampleFromSchema(property, key, depth + 1)]));
}

function stringExample(schema: Schema, name: string): string {
  const format = typeof schema.format === 'string' ? FORMATS[schema.format] : undefined;
  if (format) return format;
  if (typeof schema.pattern === 'string') {
    const pattern = safeRegExp(schema.pattern);
    const fit = pattern && [name, ...PATTERN_CANDIDATES].find((candidate) => pattern.test(candidate));
    if (fit) return fit;
  }
  const min = numberOr(schema.minLength, 0);
  const max = numberOr(schema.maxLength, Infinity);
  return name.padEnd(min, '_').slice(0, max);
}

/** The first type that is not null (`["integer", "null"]` is an integer), or object when it has properties. */
function typeOf(schema: Schema): string | undefined {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const named = types.find((t) => typeof t === 'string' && t !== 'null') ?? types.find((t) => t === 'null');
  if (typeof named === 'string') return named;
  return isSchema(schema.properties) ? 'object' : undefined;
}

function lowerBound(schema: Schema, fallback: number): number {
  if (typeof schema.minimum === 'number') return schema.minimum;
  if (typeof schema.exclusiveMinimum === 'number') return schema.exclusiveMinimum + 1;
  if (typeof schema.maximum === 'number' && schema.maximum < fallback) return schema.maximum;
  return fallback;
}

/** The i-th item of an array made distinct (numbers count up), so `uniqueItems` holds. */
function offset(value: unknown, i: number): unknown {
  if (i === 0) return value;
  if (typeof value === 'number') return value + i;
  if (typeof value === 'string') return `${value}${i + 1}`;
  return value;
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

function safeRegExp(pattern: string): RegExp | null {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return null;
  }
}

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
