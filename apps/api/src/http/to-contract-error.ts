import { HttpException } from '@nestjs/common';
import { DomainError, ErrorCode } from '../../../../libs/kernel/src';

export interface ContractError {
  code: ErrorCode;
  message: string;
  retryAfterSeconds?: number;
}

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid_parameter',
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_EMPTY_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_TYPE: 'unsupported_media_type',
  FST_ERR_BAD_URL: 'not_found',
  // An id longer than the router takes names nothing.
  FST_ERR_MAX_PARAM_LENGTH: 'not_found',
  FST_ERR_ASYNC_CONSTRAINT: 'invalid_parameter',
};

/** The route may well exist, so "no such route" would mislead: what the path holds names nothing. */
const FASTIFY_MESSAGES: Record<string, string> = {
  FST_ERR_BAD_URL: 'the path holds an invalid percent-encoding: it names nothing',
};

const STATUS_CODES: Record<number, ErrorCode> = {
  400: 'invalid_parameter',
  401: 'unauthorized',
  // Only the dashboard's static files refuse with 403 (a path climbing out of them, a dotfile): no
  // credential opens them, so 401 would mislead; the guards throw DomainErrors of their own.
  403: 'not_found',
  404: 'not_found',
  405: 'not_found',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  503: 'unavailable',
};

const MESSAGES: Partial<Record<ErrorCode, string>> = {
  invalid_json: 'the request body is not valid JSON',
  unsupported_media_type: 'this route accepts application/json bodies only',
  payload_too_large: 'the request body is larger than this route accepts',
  not_found: 'no such route',
  unauthorized: 'missing or invalid credential',
  internal_error: 'internal error',
  unavailable: 'a backing service is unavailable; nothing was accepted',
};

/**
 * Maps anything thrown while serving a request (domain errors, Nest HTTP exceptions, Fastify's
 * own parser errors) to the contract's `{code, message}`. Unknown errors become a bare
 * internal_error: no stack, SQL or driver text leaves the process.
 */
export function toContractError(error: unknown): ContractError {
  if (error instanceof DomainError) {
    return { code: error.code, message: error.message, retryAfterSeconds: error.retryAfterSeconds };
  }
  const fastifyCode = (error as { code?: string }).code;
  if (fastifyCode && FASTIFY_CODES[fastifyCode]) {
    const code = FASTIFY_CODES[fastifyCode];
    return { code, message: FASTIFY_MESSAGES[fastifyCode] ?? MESSAGES[code] ?? 'invalid request' };
  }
  if (error instanceof SyntaxError && (error as { statusCode?: number }).statusCode === 400) {
    return { code: 'invalid_json', message: MESSAGES.invalid_json! };
  }
  const status = error instanceof HttpException ? error.getStatus() : (error as { statusCode?: number }).statusCode;
  if (typeof status === 'number' && STATUS_CODES[status]) {
    const code = STATUS_CODES[status];
    return { code, message: code === 'invalid_parameter' ? safeMessage(error) : (MESSAGES[code] ?? 'request refused') };
  }
  return { code: 'internal_error', message: MESSAGES.internal_error! };
}

function safeMessage(error: unknown): string {
  const message = error instanceof HttpException ? error.message : (error as { message?: string }).message;
  return typeof message === 'string' && message.length < 300 ? message : 'invalid request';
}
