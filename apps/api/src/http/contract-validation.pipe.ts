import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { DomainError } from '../../../../libs/kernel/src';

/**
 * Deepest nesting of objects and arrays a JSON body may have. class-transformer, class-validator
 * and Nest's prototype-key stripping all recurse, so a 10,000-deep body would overflow the stack.
 */
export const MAX_BODY_DEPTH = 64;

const OPTIONAL_BODY = 'contract:optional-body';

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
    if (metadata.type === 'body' && (value === undefined || value === null) && metadata.metatype && Reflect.getMetadata(OPTIONAL_BODY, metadata.metatype)) {
      return undefined;
    }
    if (metadata.type === 'body' && metadata.metatype && metadata.metatype !== Object && !isPlainObject(value)) {
      throw new DomainError('invalid_parameter', 'the request body must be a JSON object');
    }
    if (metadata.type === 'body' && exceedsDepth(value, MAX_BODY_DEPTH)) {
      throw new DomainError('invalid_parameter', `the request body nests objects and arrays deeper than ${MAX_BODY_DEPTH} levels`);
    }
    return super.transform(value, metadata);
  }
}

/** Measured without recursion, so that the check itself cannot overflow the stack. */
export function exceedsDepth(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth > limit) return true;
    for (const child of Object.values(current)) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
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
