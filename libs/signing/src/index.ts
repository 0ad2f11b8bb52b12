/**
 * Signing and verification of webhook deliveries (CONTRACT §3 and §6). Pure TypeScript over
 * `node:crypto`, no runtime dependencies: the server signs with it and receivers can verify with it.
 *
 * `X-Service-Automation-Signature` (webhook targets) is built and checked with the same functions
 * as `X-Service-Signature` (`signServiceSignature([target.signingKey], body, t)`, `verify(...)`).
 */
export { SignatureError } from './signature.errors';
export type { SignatureErrorCode } from './signature.errors';
export {
  AUTOMATION_SIGNATURE_HEADER,
  SERVICE_SIGNATURE_HEADER,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
} from './headers';
export type { Payload } from './hmac';
export { generateSecret, SECRET_PREFIX } from './secret';
export { DEFAULT_TOLERANCE_SEC } from './tolerance';
export type { VerifyOptions } from './tolerance';
export {
  computeServiceSignature,
  isValid,
  parseSignatureHeader,
  signServiceSignature,
  verify,
} from './service-signature';
export type { ParsedSignatureHeader } from './service-signature';
export {
  computeStandardWebhookSignature,
  isValidStandardWebhook,
  signStandardWebhook,
  verifyStandardWebhook,
} from './standard-webhooks';
export type { IncomingHeaders, StandardWebhookHeaders } from './standard-webhooks';
export { sign } from './sign';
export type { SignedHeaders, SignInput } from './sign';
