import { ErrorCode } from '../../../../libs/kernel/src';

/** The contract's error table (CONTRACT §1): one code, one HTTP status. */
export function statusOf(code: ErrorCode): number {
  switch (code) {
    case 'invalid_parameter':
    case 'invalid_json':
    case 'limit_exceeded':
      return 400;
    case 'unauthorized':
      return 401;
    case 'not_found':
      return 404;
    case 'payload_too_large':
      return 413;
    case 'unsupported_media_type':
      return 415;
    case 'rate_limited':
      return 429;
    case 'unavailable':
      return 503;
    case 'internal_error':
      return 500;
    default: {
      const exhaustive: never = code;
      return exhaustive;
    }
  }
}
