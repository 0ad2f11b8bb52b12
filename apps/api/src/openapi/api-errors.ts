import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiResponse, ApiSchema } from '@nestjs/swagger';
import type { ErrorCode } from '../../../../libs/kernel/src';
import { statusOf } from '../http/error-status';

/** When each code is answered (CONTRACT §1); a Record, so a new ErrorCode cannot go undocumented. */
export const ERROR_WHEN: Record<ErrorCode, string> = {
  invalid_parameter: 'a field is missing, of the wrong type or out of range',
  invalid_json: 'the body is not parseable JSON',
  limit_exceeded: 'a documented limit would be passed',
  unauthorized: 'missing or wrong credential',
  not_found: 'no such resource in this account (another account\'s resource is also not found)',
  payload_too_large: "the body is over the route's limit",
  unsupported_media_type: 'a JSON route called with another content type',
  rate_limited: 'too many requests: wait for the seconds of the Retry-After header',
  unavailable: 'storage or queue unreachable; nothing was accepted',
  internal_error: 'an unexpected failure (the body never carries details)',
};

const ERROR_CODES = Object.keys(ERROR_WHEN) as ErrorCode[];

/** Every error answer of the API: component schema `Error`. */
@ApiSchema({ name: 'Error', description: 'The body of every error answer: a stable snake_case code and a message for a human.' })
export class ErrorBody {
  @ApiProperty({ enum: ERROR_CODES, enumName: 'ErrorCode' })
  code!: ErrorCode;

  @ApiProperty({ example: 'url must be an absolute http or https URL' })
  message!: string;
}

/** A code, or a code with what it means on this route. */
export type ErrorAnswer = ErrorCode | [ErrorCode, string];

/**
 * Documents a route's (or, on a class, every route's) error answers with the `Error` schema,
 * one response per HTTP status, its description listing the codes: `@ApiErrors('not_found')`,
 * `@ApiErrors(['invalid_parameter', 'unknown event type'], 'limit_exceeded')`. Several calls for
 * the same status merge. Answers every route shares (401 from the auth decorators, 500, and
 * 400/413/415 of a JSON body) are added for you: see openapi-document.ts.
 */
export function ApiErrors(...answers: ErrorAnswer[]): MethodDecorator & ClassDecorator {
  const byStatus = new Map<number, string[]>();
  for (const answer of answers) {
    const [code, detail] = typeof answer === 'string' ? [answer, ERROR_WHEN[answer]] : answer;
    const status = statusOf(code);
    byStatus.set(status, [...(byStatus.get(status) ?? []), errorLine(code, detail)]);
  }
  return applyDecorators(...[...byStatus].map(([status, lines]) => ApiResponse({ status, description: lines.join('\n\n'), type: ErrorBody })));
}

/** One line of an error response's description: `` `code`: when ``. */
export function errorLine(code: ErrorCode, detail: string = ERROR_WHEN[code]): string {
  return `\`${code}\`: ${detail}`;
}
