import type { Webhook } from '../api/types';
import { Link } from '../components/Link';
import { WebhookState } from './WebhookState';

/** One webhook in the list: URL, state, events, failures, and the one-click enable / disable. */
export function WebhookCard({ webhook, busy, onEnable, onDisable }: { webhook: Webhook; busy: boolean; onEnable: () => void; onDisable: () => void }) {
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
          <dt>Events ({webhook.events.length})</dt>
          <dd>
            <span class="mono">{shown.join(', ')}</span>
            {webhook.events.length > shown.length ? ` and ${webhook.events.length - shown.length} more` : ''}
          </dd>
        </div>
        <div>
          <dt>Consecutive failures</dt>
          <dd>{webhook.consecutiveFailures}</dd>
        </div>
        <div>
          <dt>Id</dt>
          <dd class="mono">{webhook.id}</dd>
        </div>
      </dl>
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
