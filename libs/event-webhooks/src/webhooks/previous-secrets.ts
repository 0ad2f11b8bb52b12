import type { SecretBox } from '../../../kernel/src';
import type { Webhook } from './webhook';

/**
 * The secrets rotated out of a webhook that still sign beside the current one, newest first.
 * They live in one sealed value (the `sealedPreviousSecret` of the webhook): a JSON list of
 * `{secret, expiresAt}`, or, as stored before there could be several, the bare secret whose
 * expiry is `previousSecretExpiresAt`. Sealing them together keeps the key ring's re-sealing and
 * start-up check unchanged: one sealed value per column.
 */
export interface PreviousSecret {
  secret: string;
  expiresAt: Date;
}

/** At most this many rotated-out secrets sign at once: each is one more `v1=` in every delivery. */
export const MAX_PREVIOUS_SECRETS = 10;

/** The webhook's rotated-out secrets, opened (none when it was never rotated). */
export function openPreviousSecrets(webhook: Pick<Webhook, 'sealedPreviousSecret' | 'previousSecretExpiresAt'>, box: SecretBox): PreviousSecret[] {
  return webhook.sealedPreviousSecret ? readPreviousSecrets(box.open(webhook.sealedPreviousSecret), webhook.previousSecretExpiresAt) : [];
}

export function readPreviousSecrets(opened: string, legacyExpiresAt: Date | null): PreviousSecret[] {
  if (!opened.startsWith('[')) return legacyExpiresAt ? [{ secret: opened, expiresAt: legacyExpiresAt }] : [];
  return (JSON.parse(opened) as Array<{ secret: string; expiresAt: number }>).map(({ secret, expiresAt }) => ({ secret, expiresAt: new Date(expiresAt) }));
}

/** How many secrets an opened value holds, expired ones included (what re-sealing it re-seals). */
export function countPreviousSecrets(opened: string): number {
  return opened.startsWith('[') ? (JSON.parse(opened) as unknown[]).length : 1;
}

export function writePreviousSecrets(secrets: readonly PreviousSecret[]): string {
  return JSON.stringify(secrets.map(({ secret, expiresAt }) => ({ secret, expiresAt: expiresAt.getTime() })));
}

/** After a rotation: the secret just rotated out first, then those still within their grace, at most MAX_PREVIOUS_SECRETS. */
export function afterRotation(rotatedOut: PreviousSecret, earlier: readonly PreviousSecret[], now: Date): PreviousSecret[] {
  return [rotatedOut, ...earlier.filter((previous) => previous.expiresAt > now)].slice(0, MAX_PREVIOUS_SECRETS);
}
