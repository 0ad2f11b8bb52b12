import { useState } from 'preact/hooks';
import { useApi } from '../api/api-context';
import { useAction } from '../api/use-action';
import type { Webhook } from '../api/types';
import { ConfirmButton } from '../components/ConfirmButton';
import { ErrorMessage } from '../components/ErrorMessage';
import { Notice } from '../components/Notice';
import { SecretReveal } from '../components/SecretReveal';

/** Enable, disable, send a test event, rotate the secret, edit, delete. */
export function WebhookActions({
  webhook,
  onChanged,
  onTestSent,
  onEdit,
  onDeleted,
}: {
  webhook: Webhook;
  onChanged: () => Promise<void>;
  onTestSent: () => void;
  onEdit: () => void;
  onDeleted: () => void;
}) {
  const api = useApi();
  const [notice, setNotice] = useState('');
  const [newSecret, setNewSecret] = useState<string | null>(null);
  const [testType, setTestType] = useState(webhook.events.includes('email.delivered') ? 'email.delivered' : (webhook.events[0] ?? 'email.delivered'));

  const action = useAction(async (what: () => Promise<string | void>) => {
    setNotice('');
    const said = await what();
    if (said) setNotice(said);
  });

  const enable = () =>
    action.run(async () => {
      await api.enableWebhook(webhook.id);
      await onChanged();
      return 'Enabled: new events are delivered again. Use “Recover” below to resend what was skipped.';
    });
  const disable = () =>
    action.run(async () => {
      await api.disableWebhook(webhook.id);
      await onChanged();
      return 'Disabled: waiting deliveries and new events are recorded as skipped.';
    });
  const test = () =>
    action.run(async () => {
      const { eventId } = await api.sendTest(webhook.id, testType);
      onTestSent();
      if (webhook.state === 'disabled') return `Test event ${eventId} (${testType}) was recorded as skipped: the webhook is disabled. Enable it, then retry the delivery to send it.`;
      return `Test event ${eventId} (${testType}) is on its way, to this webhook only. Its delivery is flagged as a test: it carries the header X-Service-Test: true.`;
    });
  const rotate = () =>
    action.run(async () => {
      const { secret } = await api.rotateSecret(webhook.id);
      setNewSecret(secret);
    });
  const remove = () =>
    action.run(async () => {
      await api.deleteWebhook(webhook.id);
      onDeleted();
    });

  return (
    <section class="card" aria-labelledby="webhook-actions-title">
      <h2 id="webhook-actions-title">Actions</h2>
      <div class="actions">
        {webhook.state === 'disabled' ? (
          <button type="button" class="primary" disabled={action.busy} onClick={enable}>
            Enable
          </button>
        ) : (
          <button type="button" disabled={action.busy} onClick={disable}>
            Disable
          </button>
        )}
        <button type="button" disabled={action.busy} onClick={onEdit}>
          Edit URL and events
        </button>
        <ConfirmButton label="Rotate secret" title="Rotate the signing secret?" confirmLabel="Rotate secret" onConfirm={rotate} disabled={action.busy}>
          <p>A new secret is issued and shown once. The current one keeps signing beside it for the rotation grace period (24 hours by default), so you can switch your receiver over.</p>
        </ConfirmButton>
        <ConfirmButton label="Delete" title="Delete this webhook?" confirmLabel="Delete webhook" danger onConfirm={remove} disabled={action.busy}>
          <p>
            <span class="mono">{webhook.url}</span> stops receiving events and its waiting deliveries are cancelled. This cannot be undone.
          </p>
        </ConfirmButton>
      </div>
      <div class="inline-form">
        <label for="test-type">Test event type</label>
        <select id="test-type" value={testType} onChange={(e) => setTestType(e.currentTarget.value)}>
          {webhook.events.map((type) => (
            <option key={type} value={type}>
              {type}
            </option>
          ))}
        </select>
        <button type="button" disabled={action.busy} onClick={test} aria-describedby="test-hint">
          Send test event
        </button>
        <p class="hint" id="test-hint">
          A sample of the chosen type, sent to this webhook only and flagged as a test (header <code>X-Service-Test: true</code>).
        </p>
      </div>
      {newSecret ? <SecretReveal title="New signing secret" label="New signing secret" value={newSecret} onDone={() => setNewSecret(null)} /> : null}
      <Notice>{notice}</Notice>
      <ErrorMessage error={action.error} />
    </section>
  );
}
