import { useState } from 'preact/hooks';
import { useApi } from '../api/api-context';
import { useAction } from '../api/use-action';
import type { Resource } from '../api/use-resource';
import type { WebhookTarget, WebhookTargetInput } from '../api/types';
import { ConfirmButton } from '../components/ConfirmButton';
import { ErrorMessage } from '../components/ErrorMessage';
import { SecretReveal } from '../components/SecretReveal';
import { TargetForm } from './TargetForm';

/** Webhook targets: where "send a webhook" steps post. */
export function TargetsSection({ targets }: { targets: Resource<WebhookTarget[]> }) {
  const api = useApi();
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<WebhookTarget | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const remove = useAction(async (id: string) => {
    await api.deleteTarget(id);
    await targets.reload();
  });

  const create = async (input: WebhookTargetInput) => {
    const target = await api.createTarget(input);
    setCreating(false);
    setCreated(target);
    await targets.reload();
  };

  const save = async (id: string, input: WebhookTargetInput) => {
    const target = await api.updateTarget(id, input);
    setEditing(null);
    setCreated(target.signingKey ? target : null);
    await targets.reload();
  };

  return (
    <section aria-labelledby="targets-title">
      <div class="page-head">
        <h2 id="targets-title">Webhook targets</h2>
        {!creating ? (
          <button type="button" class="primary" onClick={() => setCreating(true)}>
            New target
          </button>
        ) : null}
      </div>
      {created?.signingKey ? (
        <SecretReveal title={`New signing key of target ${created.name}`} label="Target signing key" value={created.signingKey} onDone={() => setCreated(null)} />
      ) : null}
      {creating ? <TargetForm onSubmit={create} onCancel={() => setCreating(false)} /> : null}
      <ErrorMessage error={targets.error} context="The targets could not be loaded" />
      <ErrorMessage error={remove.error} context="Delete failed" />
      {targets.data?.length === 0 ? <p>No targets yet.</p> : null}
      <ul class="cards" aria-label="Webhook targets">
        {targets.data?.map((target) => (
          <li key={target.id} class="card" aria-label={`Target ${target.name}`}>
            <h3>{target.name}</h3>
            <dl class="facts">
              <div>
                <dt>URL</dt>
                <dd class="mono">{target.url}</dd>
              </div>
              <div>
                <dt>Headers</dt>
                <dd class="mono">{Object.keys(target.headers).join(', ') || 'none'}</dd>
              </div>
              <div>
                <dt>Signed</dt>
                <dd>{target.signed ? 'yes' : 'no'}</dd>
              </div>
              <div>
                <dt>Id</dt>
                <dd class="mono">{target.id}</dd>
              </div>
            </dl>
            {editing === target.id ? <TargetForm initial={target} onSubmit={(input) => save(target.id, input)} onCancel={() => setEditing(null)} /> : null}
            <div class="actions">
              <button type="button" onClick={() => setEditing(target.id)} disabled={editing === target.id} aria-label={`Edit target ${target.name}`}>
                Edit
              </button>
              <ConfirmButton label="Delete" title={`Delete target ${target.name}?`} confirmLabel="Delete target" danger onConfirm={() => void remove.run(target.id)} disabled={remove.busy}>
                <p>Workflows calling this target must be changed first; the server refuses otherwise and says which.</p>
              </ConfirmButton>
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}
