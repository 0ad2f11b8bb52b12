import { ApiProperty, ApiPropertyOptions } from '@nestjs/swagger';

const MARK = 'x-any-json';

/**
 * A property that holds any JSON value (object, array, string, number, boolean or null): schema
 * `{}`. Swagger's decorators cannot write an empty schema (an `unknown` property becomes
 * `type: object`), so the property is marked here and unwrapped by unwrapAnyJson.
 */
export function ApiAnyJsonProperty(options: Pick<ApiPropertyOptions, 'description' | 'example' | 'required'> = {}): PropertyDecorator {
  return ApiProperty({ ...options, [MARK]: true } as ApiPropertyOptions);
}

/** Turns every marked schema of the document into `{}` (keeping its description and example). */
export function unwrapAnyJson(node: unknown): void {
  if (typeof node !== 'object' || node === null) return;
  const record = node as Record<string, unknown>;
  if (record[MARK] === true) {
    for (const key of Object.keys(record)) if (key !== 'description' && key !== 'example') delete record[key];
    return;
  }
  for (const child of Object.values(record)) unwrapAnyJson(child);
}
