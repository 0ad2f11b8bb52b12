import { useState } from 'preact/hooks';
import { useApi } from '../api/api-context';
import { useAction } from '../api/use-action';
import { usePolling } from '../api/use-polling';
import { useResource } from '../api/use-resource';
import type { CreatedWebhook, WebhookInput } from '../api/types';
import { ErrorMessage } from '../components/ErrorMessage';
import { Notice } from '../components/Notice';
import { SecretReveal } from '../components/SecretReveal';
import { WebhookCard } from './WebhookCard';
import { WebhookForm } from './WebhookForm';

const MAX_WEBHOOKS = 20;

/** The account's webhooks, kept live: state and why, 24 h health, create (secret shown once), enable / disable in one click. */
export function WebhooksPage() {
  const api = useApi();
  const list = useResource(() => api.listWebhooks(), [api]);
  usePolling(list.reload);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedWebhook | null>(null);
  const [notice, setNotice] = useState('');

  const create = async (input: WebhookInput) => {
    const webhook = await api.createWebhook(input);
    setCreating(false);
    setCreated(webhook);
    await list.reload();
  };
  const toggle = useAction(async (id: string, enable: boolean) => {
    const webhook = enable ? await api.enableWebhook(id) : await api.disableWebhook(id);
    setNotice(`Webhook ${webhook.url} is now ${webhook.state}.`);
    await list.reload();
  });

  const count = list.data?.length ?? 0;
  return (
    <>
      <div class="page-head">
        <h1 tabIndex={-1}>Webhooks</h1>
        <div class="actions">
          <button type="button" onClick={() => void list.reload()} disabled={list.loading}>
            Refresh
          </button>
          {!creating ? (
            <button type="button" class="primary" onClick={() => setCreating(true)} disabled={count >= MAX_WEBHOOKS}>
              New webhook
            </button>
          ) : null}
        </div>
      </div>
      <p class="lead">
        Signed JSON POSTs to your endpoints when events happen in this account. {count} of {MAX_WEBHOOKS} webhooks. This page refreshes itself while it is open.
      </p>
      {created ? (
        <SecretReveal title={`Webhook created: ${created.url}`} label="Signing secret" value={created.secret} onDone={() => setCreated(null)} />
      ) : null}
      {creating ? <WebhookForm submitLabel="Create webhook" onSubmit={create} onCancel={() => setCreating(false)} /> : null}
      <Notice>{notice}</Notice>
      <ErrorMessage error={toggle.error} />
      <ErrorMessage error={list.error} context="The webhooks could not be loaded" />
      {list.data && list.data.length === 0 ? <p>No webhooks yet.</p> : null}
      {list.data ? (
        <ul class="cards" aria-label="Webhooks">
          {list.data.map((webhook) => (
            <WebhookCard
              key={webhook.id}
              webhook={webhook}
              busy={toggle.busy}
              onEnable={() => void toggle.run(webhook.id, true)}
              onDisable={() => void toggle.run(webhook.id, false)}
            />
          ))}
        </ul>
      ) : list.loading ? (
        <p>Loading…</p>
      ) : null}
    </>
  );
}
