import { DisabledReason, Webhook } from '../webhooks/webhook';
import { AttemptTally, FailureCount, SecretRotation, WebhookPause, WebhookRepository, WebhookSettingsChange } from '../webhooks/webhook.repository';

export class InMemoryWebhookRepository extends WebhookRepository {
  readonly rows = new Map<string, Webhook>();

  async insertWithinLimit(webhook: Webhook, maxPerAccount: number) {
    if ((await this.listForAccount(webhook.accountId)).length >= maxPerAccount) return false;
    this.rows.set(webhook.id, structuredClone(webhook));
    return true;
  }
  async findForAccount(accountId: number, id: string) {
    const row = this.rows.get(id);
    return row && row.accountId === accountId ? structuredClone(row) : null;
  }
  lockForAccount(accountId: number, id: string) {
    return this.findForAccount(accountId, id);
  }
  async findById(id: string) {
    const row = this.rows.get(id);
    return row ? structuredClone(row) : null;
  }
  async listForAccount(accountId: number) {
    return [...this.rows.values()].filter((w) => w.accountId === accountId).map((w) => structuredClone(w));
  }
  async listForAccounts(accountIds: number[]) {
    return [...this.rows.values()].filter((w) => accountIds.includes(w.accountId)).map((w) => structuredClone(w));
  }
  async updateSettings(id: string, change: WebhookSettingsChange) {
    const row = this.rows.get(id);
    if (row) Object.assign(row, Object.fromEntries(Object.entries(change).filter(([, value]) => value !== undefined)));
  }
  async delete(id: string) {
    return this.rows.delete(id);
  }
  async enable(id: string, at: Date) {
    const row = this.rows.get(id);
    if (row) Object.assign(row, { state: 'enabled', consecutiveFailures: 0, disabledAt: null, disabledReason: null, updatedAt: at });
  }
  async disable(id: string, at: Date, reason: DisabledReason, consecutiveFailures?: number) {
    const row = this.rows.get(id);
    if (!row || row.state === 'disabled') return false;
    Object.assign(row, { state: 'disabled', disabledAt: at, disabledReason: reason, updatedAt: at }, consecutiveFailures === undefined ? {} : { consecutiveFailures });
    return true;
  }
  async replaceSecret(id: string, rotation: SecretRotation, at: Date) {
    const row = this.rows.get(id);
    if (!row || row.sealedSecret !== rotation.replacing) return false;
    Object.assign(row, { sealedSecret: rotation.sealedSecret, sealedPreviousSecret: rotation.sealedPrevious, previousSecretExpiresAt: rotation.previousExpiresAt, updatedAt: at });
    return true;
  }
  async pauseUntil(pauses: WebhookPause[]) {
    for (const { webhookId, until } of pauses) {
      const row = this.rows.get(webhookId);
      if (row && (row.pausedUntil === null || row.pausedUntil < until)) row.pausedUntil = until;
    }
  }
  async countDisabled() {
    return [...this.rows.values()].filter((w) => w.state === 'disabled').length;
  }
  async failureCounts(ids: string[]): Promise<Map<string, FailureCount>> {
    const counts = new Map<string, FailureCount>();
    for (const id of ids) {
      const row = this.rows.get(id);
      if (row) counts.set(id, { consecutiveFailures: row.consecutiveFailures, state: row.state });
    }
    return counts;
  }
  async tallyAttempts(tallies: AttemptTally[]): Promise<Map<string, FailureCount>> {
    const counts = new Map<string, FailureCount>();
    for (const { webhookId, failures, reset } of tallies) {
      const row = this.rows.get(webhookId);
      if (!row) continue;
      if (row.state === 'enabled') row.consecutiveFailures = reset ? failures : row.consecutiveFailures + failures;
      counts.set(webhookId, { consecutiveFailures: row.consecutiveFailures, state: row.state });
    }
    return counts;
  }
}
