import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiSchema } from '@nestjs/swagger';
import { OptionalBody } from './contract-validation.pipe';

/**
 * The body of a POST that takes none: no body, `null` or `{}`. A field in it is
 * `400 invalid_parameter` ("property x should not exist"), as an unknown field is on every other
 * route, so a misspelt option is never silently ignored; and like every JSON body it can be 400
 * invalid_json, 413 or 415, which the OpenAPI document then lists.
 */
@OptionalBody()
@ApiSchema({ name: 'NoBody', description: 'This route takes no body; an empty object at most.' })
export class NoBody {}

/** Documents a route's body as NoBody (optional); the handler takes `@Body() _none?: NoBody` for the check. */
export const TakesNoBody = () => applyDecorators(ApiBody({ type: NoBody, required: false }));
