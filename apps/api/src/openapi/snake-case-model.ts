import type { Type } from '@nestjs/common';
import { ApiSchema, DECORATORS } from '@nestjs/swagger';
import { snakeCase } from '../http/family-casing';

type Model = Type<unknown>;
type Decorated = { type?: unknown } & Record<string, unknown>;

const twins = new Map<Model, Model>();

/**
 * The v2 (snake_case) twin of a v3 (camelCase) response class: the same documented properties,
 * keys renamed, classes of nested properties replaced by their own twins (so twin the inner
 * classes first). One class written in camelCase thus documents both families, as the
 * presenters produce both from one view. Values such as enums and examples are left alone.
 */
export function snakeCaseModel(v3: Model, name: string): Model {
  const twin = { [name]: class {} }[name];
  const proto = twin.prototype as object;
  for (const key of documentedKeys(v3)) {
    const metadata = Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, v3.prototype as object, key) as Decorated;
    const snake = snakeCase(key);
    Reflect.defineMetadata(DECORATORS.API_MODEL_PROPERTIES, { ...metadata, type: twinOf(metadata.type) }, proto, snake);
    const keys = (Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES_ARRAY, proto) as string[] | undefined) ?? [];
    Reflect.defineMetadata(DECORATORS.API_MODEL_PROPERTIES_ARRAY, [...keys, `:${snake}`], proto);
  }
  ApiSchema({ name })(twin);
  twins.set(v3, twin);
  return twin;
}

/** The property names a response class documents, in declaration order (inherited ones first). */
export function documentedKeys(model: Model): string[] {
  const keys = (Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES_ARRAY, model.prototype as object) as string[] | undefined) ?? [];
  return [...new Set(keys.map((key) => key.slice(1)))];
}

function twinOf(type: unknown): unknown {
  if (typeof type !== 'function') return type;
  const twin = twins.get(type as Model);
  if (twin) return twin;
  // A lazy type (`type: () => Model`) is a function without a prototype.
  return type.prototype === undefined ? () => twinOf((type as () => unknown)()) : type;
}
