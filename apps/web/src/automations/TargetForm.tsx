import { useState } from 'preact/hooks';
import type { WebhookTargetInput } from '../api/types';
import { ErrorMessage } from '../components/ErrorMessage';
import { HeaderRows, HeaderRow, headersOf } from './HeaderRows';

type Signing = 'none' | 'generate' | 'own';

/** Create a webhook target: name, URL, custom headers, and an optional signing key. */
export function TargetForm({ onSubmit, onCancel }: { onSubmit: (input: WebhookTargetInput) => Promise<void>; onCancel: () => void }) {
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [headers, setHeaders] = useState<HeaderRow[]>([]);
  const [signing, setSigning] = useState<Signing>('generate');
  const [ownKey, setOwnKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const input: WebhookTargetInput = { name: name.trim(), url: url.trim() };
      const h = headersOf(headers);
      if (Object.keys(h).length > 0) input.headers = h;
      if (signing === 'generate') input.generateSigningKey = true;
      if (signing === 'own') input.signingKey = ownKey;
      await onSubmit(input);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card" onSubmit={submit} method="post" action="#" aria-label="New webhook target">
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
          {busy ? 'Creating…' : 'Create target'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
