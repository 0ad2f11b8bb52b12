import { useRef, useState } from 'preact/hooks';
import { useApi } from '../api/api-context';
import { useResource } from '../api/use-resource';
import type { Webhook, WebhookInput } from '../api/types';
import { ErrorMessage } from '../components/ErrorMessage';
import { EventPicker } from './EventPicker';
import { focusPageHeadingIfLost, useFocusFirstField } from '../components/focus';

/** Create or edit a webhook: URL, description and events. Submits to the API and reports its errors. */
export function WebhookForm({
  initial,
  submitLabel,
  onSubmit,
  onCancel,
}: {
  initial?: Webhook;
  submitLabel: string;
  onSubmit: (input: WebhookInput) => Promise<void>;
  onCancel: () => void;
}) {
  const api = useApi();
  const catalog = useResource(() => api.eventTypes(), [api]);
  const [url, setUrl] = useState(initial?.url ?? '');
  const [description, setDescription] = useState(initial?.description ?? '');
  const [events, setEvents] = useState<string[]>(initial?.events ?? []);
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  useFocusFirstField(form);
  const [error, setError] = useState<unknown>(undefined);
  const prefix = initial ? `edit-${initial.id}` : 'new-webhook';

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      // Sent as typed: the API checks the URL and the events, and its message is shown as is. An
      // emptied description is null, which clears it (PUT leaves out what it is not given).
      await onSubmit({ url: url.trim(), events, description: description.trim() || (initial ? null : undefined) });
      focusPageHeadingIfLost();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form ref={form} class="card webhook-form" onSubmit={submit} method="post" action="#" aria-label={initial ? 'Edit webhook' : 'New webhook'}>
      <div class="field">
        <label for={`${prefix}-url`}>Endpoint URL</label>
        <input
          id={`${prefix}-url`}
          type="url"
          inputMode="url"
          required
          maxLength={2048}
          placeholder="https://example.com/webhooks"
          value={url}
          onInput={(e) => setUrl(e.currentTarget.value)}
          aria-describedby={`${prefix}-url-hint`}
        />
        <p class="hint" id={`${prefix}-url-hint`}>
          An absolute http or https URL that answers 2xx within 10 seconds.
        </p>
      </div>
      <div class="field">
        <label for={`${prefix}-description`}>Description (optional)</label>
        <input id={`${prefix}-description`} type="text" maxLength={500} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
      </div>
      <ErrorMessage error={catalog.error} context="The event catalog could not be loaded" />
      {catalog.data ? <EventPicker types={catalog.data} selected={events} onChange={setEvents} /> : catalog.loading ? <p>Loading the event catalog…</p> : null}
      <ErrorMessage error={error} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Saving…' : submitLabel}
        </button>
        <button
          type="button"
          onClick={() => {
            onCancel();
            focusPageHeadingIfLost();
          }}
        >
          Cancel
        </button>
      </div>
    </form>
  );
}
