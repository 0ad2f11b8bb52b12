import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';
import { DomainError } from '../../../../libs/kernel/src';

const OPTIONAL_BODY = 'contract:optional-body';
const RAW_JSON = 'contract:raw-json';

/**
 * Marks a body property whose object the handler gets exactly as received: class-transformer
 * would walk into it and drop (or trip over) keys that Object.prototype also has, such as
 * `constructor` or `toString`, which are ordinary names in a map of header names. The decorators
 * beside it see an empty object of the same kind; the domain checks the value itself.
 */
export const RawJson = (): PropertyDecorator => (target, key) => {
  const keys: Array<string | symbol> = Reflect.getMetadata(RAW_JSON, target.constructor) ?? [];
  Reflect.defineMetadata(RAW_JSON, [...keys, key], target.constructor);
};

/** Marks a body DTO whose route also takes no body at all (or JSON null): the handler then gets undefined. */
export const OptionalBody = (): ClassDecorator => (target) => Reflect.defineMetadata(OPTIONAL_BODY, true, target);

/**
 * class-validator on every DTO, failing with the contract's `invalid_parameter`. A body that
 * is valid JSON but not an object (an array, a string) is refused before class-transformer
 * sees it.
 */
export class ContractValidationPipe extends ValidationPipe {
  constructor() {
    super({
      whitelist: true,
      forbidNonWhitelisted: true,
      transform: true,
      stopAtFirstError: true,
      exceptionFactory: (errors) => new DomainError('invalid_parameter', describe(errors)),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    // A path parameter stays the string it was: each route parses its own (the implicit conversion
    // of a `number` parameter read `1.0`, `01` and `1 ` as 1).
    if (metadata.type === 'param') return value;
    if (metadata.type === 'query' && metadata.metatype && metadata.metatype !== Object) refuseUnknownParameters(value, metadata.metatype);
    if (metadata.type === 'body' && (value === undefined || value === null) && metadata.metatype && Reflect.getMetadata(OPTIONAL_BODY, metadata.metatype)) {
      return undefined;
    }
    if (metadata.type === 'body' && metadata.metatype && metadata.metatype !== Object && !isPlainObject(value)) {
      throw new DomainError('invalid_parameter', 'the request body must be a JSON object');
    }
    const rawKeys: Array<string | symbol> | undefined = metadata.type === 'body' && metadata.metatype ? Reflect.getMetadata(RAW_JSON, metadata.metatype) : undefined;
    if (!rawKeys) return super.transform(value, metadata);
    const received = value as Record<string | symbol, unknown>;
    const standIns = { ...received };
    for (const key of rawKeys) if (isPlainObject(received[key])) standIns[key] = {};
    const transformed = (await super.transform(standIns, metadata)) as Record<string | symbol, unknown>;
    for (const key of rawKeys) if (isPlainObject(received[key])) transformed[key] = received[key];
    return transformed;
  }
}

const QUERY_FIELDS = new WeakMap<object, Set<string>>();

/**
 * A query parameter the route's DTO does not declare is refused, by name: whitelisting alone lets
 * names that every object has through Object.prototype (`constructor`, `toString`, `__proto__`) by.
 */
function refuseUnknownParameters(value: unknown, metatype: object): void {
  if (typeof value !== 'object' || value === null) return;
  let fields = QUERY_FIELDS.get(metatype);
  if (!fields) {
    fields = new Set(getMetadataStorage().getTargetValidationMetadatas(metatype as new () => object, '', true, false).map((m) => m.propertyName));
    QUERY_FIELDS.set(metatype, fields);
  }
  for (const name of Object.keys(value)) {
    if (!fields.has(name)) throw new DomainError('invalid_parameter', `property ${name.slice(0, 100)} should not exist`);
  }
}

function isPlainObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(errors: ValidationError[], parent = ''): string {
  for (const error of errors) {
    const path = parent ? `${parent}.${error.property}` : error.property;
    if (error.constraints) {
      const [first] = Object.values(error.constraints);
      return first.replace(error.property, path);
    }
    if (error.children?.length) return describe(error.children, path);
  }
  return 'invalid parameter';
}
