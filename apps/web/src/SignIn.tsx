import { useState } from 'preact/hooks';
import { ApiClient } from './api/client';
import { ErrorMessage } from './components/ErrorMessage';

/** Sign in with an account's API key: checked with one harmless call before it is kept. */
export function SignIn({ onSignedIn, reason }: { onSignedIn: (apiKey: string) => void; reason?: string }) {
  const [apiKey, setApiKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);

  const submit = async (event: Event) => {
    event.preventDefault();
    const key = apiKey.trim();
    if (!key) return setError(new Error('Enter an API key.'));
    setBusy(true);
    setError(undefined);
    try {
      await new ApiClient(key).eventTypes();
      onSignedIn(key);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main" class="sign-in">
      <h1>Webhook server</h1>
      <p>Sign in with one account's API key to manage its webhooks, deliveries, automations and send status.</p>
      {reason ? (
        <p class="notice" role="status">
          {reason}
        </p>
      ) : null}
      <form onSubmit={submit} method="post" action="#" class="card">
        <div class="field">
          <label for="api-key">API key</label>
          <input
            id="api-key"
            name="api-key"
            type="password"
            autoComplete="off"
            spellcheck={false}
            required
            value={apiKey}
            onInput={(e) => setApiKey(e.currentTarget.value)}
            aria-describedby="api-key-hint"
          />
          <p class="hint" id="api-key-hint">
            Kept in this tab's session storage only, sent in the <code>api-key</code> header, and forgotten when you sign out or close the tab.
          </p>
        </div>
        <ErrorMessage error={error} context="Sign-in failed" />
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
