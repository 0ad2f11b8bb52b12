import { EventCatalog } from '../../../../libs/event-webhooks/src';
import { exampleFromSchema } from './schema-example';

describe(exampleFromSchema.name, () => {
  it("gives, for every type of the server's catalog, a data example that its own schema accepts", () => {
    const catalog = new EventCatalog();
    expect(catalog.definitions.length).toBeGreaterThanOrEqual(30);
    for (const { type, schema } of catalog.definitions) {
      const example = exampleFromSchema(schema) as Record<string, unknown>;
      expect({ type, check: catalog.checkData(type, example) }).toEqual({ type, check: { ok: true } });
    }
  });

  it('prefers what the schema says: examples, example, const, enum, default, in that order', () => {
    expect(exampleFromSchema({ type: 'string', examples: ['first', 'second'], enum: ['x'] })).toBe('first');
    expect(exampleFromSchema({ type: 'integer', example: 7, default: 3 })).toBe(7);
    expect(exampleFromSchema({ const: 'fixed' })).toBe('fixed');
    expect(exampleFromSchema({ type: 'integer', enum: [2, 4] })).toBe(2);
    expect(exampleFromSchema({ type: 'boolean', default: false })).toBe(false);
    expect(exampleFromSchema({ oneOf: [{ type: 'integer', minimum: 5 }, { type: 'string' }] })).toBe(5);
  });

  it('builds values from type and format, honouring bounds, nullable types and uniqueness', () => {
    expect(
      exampleFromSchema({
        type: 'object',
        properties: {
          at: { type: 'string', format: 'date-time' },
          email: { type: 'string', format: 'email' },
          code: { type: 'string', minLength: 8 },
          phone: { type: 'string', pattern: '^\\+[1-9][0-9]{1,14}$' },
          count: { type: 'integer', minimum: 0 },
          after: { type: 'integer', exclusiveMinimum: 10 },
          ratio: { type: 'number' },
          parent: { type: ['integer', 'null'], minimum: 1 },
          nothing: { type: 'null' },
          ids: { type: 'array', items: { type: 'integer', minimum: 1 }, minItems: 2, uniqueItems: true },
          nested: { properties: { on: { type: 'boolean' } } },
          free: {},
        },
      }),
    ).toEqual({
      at: '2025-11-22T02:00:00.000Z',
      email: 'jane@example.com',
      code: 'code____',
      phone: '+33612345678',
      count: 0,
      after: 11,
      ratio: 1.5,
      parent: 1,
      nothing: null,
      ids: [1, 2],
      nested: { on: true },
      free: null,
    });
  });

  it('stops on schemas that are not objects and on runaway nesting', () => {
    expect(exampleFromSchema(undefined)).toBeNull();
    expect(exampleFromSchema(true)).toBeNull();
    let deep: Record<string, unknown> = { type: 'integer' };
    for (let i = 0; i < 40; i++) deep = { type: 'array', items: deep };
    expect(JSON.stringify(exampleFromSchema(deep)).length).toBeLessThan(100);
  });
});
