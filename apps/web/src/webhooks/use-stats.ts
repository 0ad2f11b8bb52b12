import { useApi } from '../api/api-context';
import { useResource } from '../api/use-resource';

/** The last 24 hours of a webhook (GET .../stats, CONTRACT §9.3); its error is kept, the screen shows "–". */
export function useWebhookStats(webhookId: string) {
  const api = useApi();
  return useResource(() => api.webhookStats(webhookId), [api, webhookId]);
}
