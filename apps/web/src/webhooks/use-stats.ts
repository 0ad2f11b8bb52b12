import { useApi } from '../api/api-context';
import { useResource } from '../api/use-resource';

/** What changes when a webhook's attempts do: its state and failure counter. */
export function statsVersion(webhook: { state: string; consecutiveFailures: number }): string {
  return `${webhook.state}/${webhook.consecutiveFailures}`;
}

/**
 * The last 24 hours of a webhook (GET .../stats, CONTRACT §9.3); its error is kept, the screen
 * shows "–". Read again at once when `version` moves (the page's own polling saw the webhook
 * change), besides the slower polling of the figures themselves.
 */
export function useWebhookStats(webhookId: string, version: string) {
  const api = useApi();
  return useResource(() => api.webhookStats(webhookId), [api, webhookId, version]);
}
