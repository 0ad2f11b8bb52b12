import { useState } from 'preact/hooks';
import { useApi } from '../api/api-context';
import { usePolling } from '../api/use-polling';
import { useResource } from '../api/use-resource';
import type { WebhookInput } from '../api/types';
import { ErrorMessage } from '../components/ErrorMessage';
import { Link } from '../components/Link';
import { Time } from '../components/Time';
import { navigate } from '../router';
import { DeliveryLog } from './DeliveryLog';
import { WebhookActions } from './WebhookActions';
import { WebhookForm } from './WebhookForm';
import { WebhookHealth } from './WebhookHealth';
import { statsVersion } from './use-stats';
import { WebhookState } from './WebhookState';

/** One webhook, kept live: its state, settings and actions, its last 24 hours, then its delivery log. */
export function WebhookPage({ id, eventId }: { id: string; eventId?: string }) {
  const api = useApi();
  const webhook = useResource(() => api.getWebhook(id), [api, id]);
  usePolling(webhook.reload);
  const [editing, setEditing] = useState(false);
  const [logVersion, setLogVersion] = useState(0);

  const save = async (input: WebhookInput) => {
    await api.updateWebhook(id, input);
    setEditing(false);
    await webhook.reload();
  };

  const w = webhook.data;
  return (
    <>
      <p class="breadcrumb">
        <Link to={{ name: 'webhooks' }}>← All webhooks</Link>
      </p>
      <h1 tabIndex={-1} class="url">
        {w ? w.url : 'Webhook'}
      </h1>
      <ErrorMessage error={webhook.error} context="The webhook could not be loaded" />
      {w ? (
        <>
          {w.description ? <p class="description">{w.description}</p> : null}
          <WebhookState webhook={w} />
          <dl class="facts">
            <div>
              <dt>Id</dt>
              <dd class="mono">{w.id}</dd>
            </div>
            <div>
              <dt>Consecutive failures</dt>
              <dd>{w.consecutiveFailures}</dd>
            </div>
            <div>
              <dt>Created</dt>
              <dd>
                <Time iso={w.createdAt} />
              </dd>
            </div>
            <div>
              <dt>Events ({w.events.length})</dt>
              <dd class="mono">{w.events.join(', ')}</dd>
            </div>
          </dl>
          <WebhookActions
            webhook={w}
            onChanged={() => webhook.reload()}
            onTestSent={() => setLogVersion((v) => v + 1)}
            onEdit={() => setEditing(true)}
            onDeleted={() => navigate({ name: 'webhooks' })}
          />
          {editing ? <WebhookForm initial={w} submitLabel="Save changes" onSubmit={save} onCancel={() => setEditing(false)} /> : null}
          <WebhookHealth webhookId={w.id} version={statsVersion(w)} />
          <DeliveryLog webhookId={w.id} family={w.apiVersion} enabled={w.state === 'enabled'} version={logVersion} eventId={eventId} />
        </>
      ) : webhook.loading ? (
        <p>Loading…</p>
      ) : null}
    </>
  );
}
