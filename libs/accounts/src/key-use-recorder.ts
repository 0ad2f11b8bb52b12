import { ApiKeyRepository } from './account.repository';

/** A key's last use is written at most this often: authentication never writes per request. */
export const KEY_USE_WRITE_INTERVAL_MS = 60_000;
const REMEMBERED_KEYS_MAX = 10_000;

/**
 * Records that a key was used, at most once a minute per key and process (and, through the
 * repository's condition, once a minute across processes). The write is not awaited by the
 * request: `lastUsedAt` is informational, so a failed write is only retried at the next use.
 */
export class KeyUseRecorder {
  private readonly writtenAt = new Map<string, number>();

  constructor(private readonly apiKeys: ApiKeyRepository) {}

  used(keyId: string, nowMs: number): void {
    const last = this.writtenAt.get(keyId);
    if (last !== undefined && nowMs - last < KEY_USE_WRITE_INTERVAL_MS) return;
    if (this.writtenAt.size >= REMEMBERED_KEYS_MAX) this.writtenAt.clear();
    this.writtenAt.set(keyId, nowMs);
    this.apiKeys.recordUse(keyId, new Date(nowMs), new Date(nowMs - KEY_USE_WRITE_INTERVAL_MS)).catch(() => this.writtenAt.delete(keyId));
  }
}
