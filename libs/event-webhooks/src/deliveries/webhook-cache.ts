import { SecretBox } from '../../../kernel/src';
import { Webhook } from '../webhooks/webhook';
import { WebhookRepository } from '../webhooks/webhook.repository';
import { openPreviousSecrets, PreviousSecret } from '../webhooks/previous-secrets';

export interface CachedWebhook {
  webhook: Webhook;
  /** The current secret, opened. */
  secret: string;
  /** The secrets rotated out, opened, newest first (each signs until its expiresAt). */
  previous: PreviousSecret[];
}

/**
 * Webhooks with their secrets opened, kept in memory between deliveries. The dispatch read
 * returns each webhook's version (its `updatedAt`, moved by every change of settings, secret or
 * state) with the delivery, so a changed webhook is read again at no extra round trip, in any
 * process; what decides correctness (state, seq, claim) is checked on the delivery row itself.
 */
export class WebhookCache {
  private readonly entries = new Map<string, { version: number; value: CachedWebhook }>();
  /** Reads in flight, shared by every caller that misses meanwhile (64 deliveries of one webhook: one read). */
  private readonly loading = new Map<string, Promise<CachedWebhook | null>>();

  constructor(
    private readonly webhooks: WebhookRepository,
    private readonly secretBox: SecretBox,
    private readonly maxEntries = 10_000,
  ) {}

  /**
   * The webhook as last read, whatever its version now (null when not in memory): enough to choose
   * a lane; what the call uses comes from get() with the version read at the claim.
   */
  peek(id: string): CachedWebhook | null {
    return this.entries.get(id)?.value ?? null;
  }

  /** The webhook at `version` or newer; null when it is gone. */
  async get(id: string, version: number): Promise<CachedWebhook | null> {
    const entry = this.entries.get(id);
    if (entry && entry.version >= version) return entry.value;
    let loading = this.loading.get(id);
    if (!loading) {
      loading = this.load(id).finally(() => this.loading.delete(id));
      this.loading.set(id, loading);
    }
    const loaded = await loading;
    // A read that began before this version existed is not enough: read again.
    return loaded && loaded.webhook.updatedAt.getTime() < version ? this.load(id) : loaded;
  }

  private async load(id: string): Promise<CachedWebhook | null> {
    const webhook = await this.webhooks.findById(id);
    if (!webhook) {
      this.entries.delete(id);
      return null;
    }
    const value = this.open(webhook);
    this.entries.delete(id);
    this.entries.set(id, { version: webhook.updatedAt.getTime(), value });
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    return value;
  }

  private open(webhook: Webhook): CachedWebhook {
    return { webhook, secret: this.secretBox.open(webhook.sealedSecret), previous: openPreviousSecrets(webhook, this.secretBox) };
  }
}

/** Newest first: the current secret, then each rotated-out one while its grace period lasts. */
export function signingSecrets(cached: CachedWebhook, now: Date): string[] {
  return [cached.secret, ...cached.previous.filter((previous) => previous.expiresAt > now).map((previous) => previous.secret)];
}
