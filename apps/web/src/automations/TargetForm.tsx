import { useRef, useState } from 'preact/hooks';
import type { WebhookTarget, WebhookTargetInput } from '../api/types';
import { ErrorMessage } from '../components/ErrorMessage';
import { HeaderRows, HeaderRow, headersOf } from './HeaderRows';
import { focusPageHeadingIfLost, useFocusFirstField } from '../components/focus';

type Signing = 'keep' | 'none' | 'generate' | 'own';

/** Create or edit (PUT) a webhook target: name, URL, custom headers, and an optional signing key. */
export function TargetForm({ initial, onSubmit, onCancel }: { initial?: WebhookTarget; onSubmit: (input: WebhookTargetInput) => Promise<void>; onCancel: () => void }) {
  const [name, setName] = useState(initial?.name ?? '');
  const [url, setUrl] = useState(initial?.url ?? '');
  const [headers, setHeaders] = useState<HeaderRow[]>(() => Object.entries(initial?.headers ?? {}).map(([n, value]) => ({ name: n, value })));
  const [signing, setSigning] = useState<Signing>(initial ? 'keep' : 'generate');
  const [ownKey, setOwnKey] = useState('');
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  useFocusFirstField(form);
  const [error, setError] = useState<unknown>(undefined);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const input: WebhookTargetInput = { name: name.trim(), url: url.trim() };
      const h = headersOf(headers);
      // On edit the headers are always sent, so that removing the last one clears them.
      if (initial || Object.keys(h).length > 0) input.headers = h;
      if (signing === 'generate') input.generateSigningKey = true;
      if (signing === 'own') input.signingKey = ownKey;
      if (signing === 'none' && initial) input.signingKey = null;
      await onSubmit(input);
      focusPageHeadingIfLost();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form ref={form} class="card" onSubmit={submit} method="post" action="#" aria-label={initial ? `Edit webhook target ${initial.name}` : 'New webhook target'}>
      <div class="field">
        <label for="target-name">Name</label>
        <input id="target-name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </div>
      <div class="field">
        <label for="target-url">URL</label>
        <input id="target-url" type="url" required maxLength={2048} placeholder="https://crm.example.com/hooks" value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
      </div>
      <HeaderRows rows={headers} onChange={setHeaders} />
      <fieldset class="radios">
        <legend>Signing (X-Service-Automation-Signature)</legend>
        {initial ? (
          <label class="check">
            <input type="radio" name="signing" checked={signing === 'keep'} onChange={() => setSigning('keep')} /> Keep as it is ({initial.signed ? 'signed' : 'not signed'})
          </label>
        ) : null}
        <label class="check">
          <input type="radio" name="signing" checked={signing === 'none'} onChange={() => setSigning('none')} /> Not signed
        </label>
        <label class="check">
          <input type="radio" name="signing" checked={signing === 'generate'} onChange={() => setSigning('generate')} /> Generate a signing key (shown once)
        </label>
        <label class="check">
          <input type="radio" name="signing" checked={signing === 'own'} onChange={() => setSigning('own')} /> Use my own key
        </label>
        {signing === 'own' ? (
          <div class="field">
            <label for="target-own-key">Signing key (16 to 512 characters)</label>
            <input id="target-own-key" type="password" autoComplete="off" value={ownKey} onInput={(e) => setOwnKey(e.currentTarget.value)} />
          </div>
        ) : null}
      </fieldset>
      <ErrorMessage error={error} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Saving…' : initial ? 'Save target' : 'Create target'}
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
