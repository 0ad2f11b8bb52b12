import { useState } from 'preact/hooks';
import { useApi } from '../api/api-context';
import { useAction } from '../api/use-action';
import type { SendNotFound, SendStatus } from '../api/types';
import { ErrorMessage } from '../components/ErrorMessage';
import { StatusBadge } from '../components/StatusBadge';
import { Time } from '../components/Time';

/** Paste a send id, see its status, history, diag code and bounce type. */
export function SendStatusPage() {
  const api = useApi();
  const [id, setId] = useState('');
  const [result, setResult] = useState<SendStatus | SendNotFound | null>(null);
  const lookup = useAction(async () => {
    setResult(null);
    setResult(await api.sendStatus(id.trim()));
  });

  return (
    <>
      <h1 tabIndex={-1}>Send status</h1>
      <p class="lead">The delivery status of one transactional email, by the id returned when it was sent.</p>
      <form
        class="card inline-form"
        method="post"
        action="#"
        onSubmit={(e) => {
          e.preventDefault();
          void lookup.run();
        }}
      >
        <label for="send-id">Send id</label>
        <input id="send-id" class="mono" required placeholder="msg_…" spellcheck={false} value={id} onInput={(e) => setId(e.currentTarget.value)} />
        <button type="submit" class="primary" disabled={lookup.busy}>
          Look up
        </button>
      </form>
      <ErrorMessage error={lookup.error} context="Lookup failed" />
      {result ? <SendStatusResult result={result} /> : null}
    </>
  );
}

function SendStatusResult({ result }: { result: SendStatus | SendNotFound }) {
  if (result.status === 'not_found') {
    return (
      <section class="card" aria-label="Send status" role="status">
        <p>
          <StatusBadge status="not_found" /> No send <span class="mono">{result.id}</span> in this account (unknown, another account's, or purged after the retention period).
        </p>
      </section>
    );
  }
  const send = result as SendStatus;
  return (
    <section class="card" aria-labelledby="send-result-title">
      <h2 id="send-result-title">
        <span class="mono">{send.id}</span>
      </h2>
      <p class="state">
        <StatusBadge status={send.status} />
      </p>
      <dl class="facts">
        <div>
          <dt>Recipient</dt>
          <dd>{send.email}</dd>
        </div>
        <div>
          <dt>Diag code</dt>
          <dd class="mono">{send.diagCode ?? '—'}</dd>
        </div>
        <div>
          <dt>Bounce type</dt>
          <dd>{send.bounceType ? `${send.bounceType} (${send.bounceType === 'hard' ? 'permanent' : 'temporary'})` : '—'}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>
            <Time iso={send.createdAt} />
          </dd>
        </div>
        <div>
          <dt>Updated</dt>
          <dd>
            <Time iso={send.updatedAt} />
          </dd>
        </div>
      </dl>
      <h3>History</h3>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Status</th>
              <th scope="col">At</th>
              <th scope="col">Diag code</th>
            </tr>
          </thead>
          <tbody>
            {send.history.map((h, i) => (
              <tr key={i}>
                <td>
                  <StatusBadge status={h.status} />
                </td>
                <td>
                  <Time iso={h.at} />
                </td>
                <td class="mono">{h.diagCode ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
