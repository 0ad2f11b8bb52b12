/** Header carrying the Stripe-style signature of an event delivery: `t=<unix>,v1=<hex>[,v1=<hex>...]`. */
export const SERVICE_SIGNATURE_HEADER = 'X-Service-Signature';

/**
 * Header carrying the signature of a webhook-target call (automations). Same construction and same
 * functions as {@link SERVICE_SIGNATURE_HEADER}, keyed with the UTF-8 bytes of the target's key string.
 */
export const AUTOMATION_SIGNATURE_HEADER = 'X-Service-Automation-Signature';

/** Standard Webhooks headers (https://www.standardwebhooks.com), lowercase as Node delivers them. */
export const WEBHOOK_ID_HEADER = 'webhook-id';
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';
