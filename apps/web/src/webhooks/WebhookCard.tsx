import type { Webhook } from '../api/types';
import { STATS_POLL_INTERVAL_MS, usePolling } from '../api/use-polling';
import { Link } from '../components/Link';
import { latencyText, successRateText } from './stats-format';
import { statsVersion, useWebhookStats } from './use-stats';
import { WebhookState } from './WebhookState';

/** One webhook in the list: URL, state and why, health of the last 24 h, and the one-click enable / disable. */
export function WebhookCard({
  webhook,
  busy,
  onEnable,
  onDisable,
}: {
  webhook: Webhook;
  busy: boolean;
  onEnable: () => void;
  onDisable: () => void;
}) {
  const stats = useWebhookStats(webhook.id, statsVersion(webhook));
  usePolling(stats.reload, STATS_POLL_INTERVAL_MS);
  const shown = webhook.events.slice(0, 4);
  return (
    <li class="card webhook-card" aria-label={`Webhook ${webhook.url}`}>
      <h3 class="url">
        <Link to={{ name: 'webhook', id: webhook.id }}>{webhook.url}</Link>
      </h3>
      {webhook.description ? <p class="description">{webhook.description}</p> : null}
      <WebhookState webhook={webhook} />
      <dl class="facts">
        <div>
          <dt>Success rate (24 h)</dt>
          <dd class="figure">{successRateText(stats.data)}</dd>
        </div>
        <div>
          <dt>p95 latency (24 h)</dt>
          <dd class="figure">{latencyText(stats.data?.latencyMs?.p95)}</dd>
        </div>
        <div>
          <dt>Consecutive failures</dt>
          <dd>{webhook.consecutiveFailures}</dd>
        </div>
        <div>
          <dt>Events ({webhook.events.length})</dt>
          <dd>
            <span class="mono">{shown.join(', ')}</span>
            {webhook.events.length > shown.length ? ` and ${webhook.events.length - shown.length} more` : ''}
          </dd>
        </div>
      </dl>
      {stats.error && !stats.data ? <p class="hint">Health figures unavailable: the stats route did not answer ({errorText(stats.error)}).</p> : null}
      <div class="actions">
        {webhook.state === 'disabled' ? (
          <button type="button" class="primary" disabled={busy} onClick={onEnable} aria-label={`Enable webhook ${webhook.url}`}>
            Enable
          </button>
        ) : (
          <button type="button" disabled={busy} onClick={onDisable} aria-label={`Disable webhook ${webhook.url}`}>
            Disable
          </button>
        )}
        <Link to={{ name: 'webhook', id: webhook.id }} class="button">
          Deliveries and settings
        </Link>
      </div>
    </li>
  );
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
