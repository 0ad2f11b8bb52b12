import { useState } from 'preact/hooks';
import { useApi } from '../api/api-context';
import { useAction } from '../api/use-action';
import { ErrorMessage } from '../components/ErrorMessage';
import { formatTime } from '../components/format-time';
import { Notice } from '../components/Notice';

/** Requeue every failed or skipped delivery created at or after a chosen time; says how many. */
export function RecoverForm({ webhookId, onRecovered }: { webhookId: string; onRecovered: () => Promise<void> }) {
  const api = useApi();
  const [since, setSince] = useState(() => localInputValue(new Date(Date.now() - 24 * 3600_000)));
  const [result, setResult] = useState('');
  const recover = useAction(async () => {
    setResult('');
    const at = new Date(since);
    if (Number.isNaN(at.getTime())) throw new Error('Choose a date and time to recover from.');
    const { count } = await api.recover(webhookId, at.toISOString());
    setResult(`${count} ${count === 1 ? 'delivery' : 'deliveries'} requeued (failed or skipped since ${formatTime(at)}).`);
    await onRecovered();
  });
  return (
    <form
      class="inline-form"
      method="post"
      action="#"
      onSubmit={(e) => {
        e.preventDefault();
        void recover.run();
      }}
    >
      <label for="recover-since">Recover failed and skipped deliveries since (your time zone, {Intl.DateTimeFormat().resolvedOptions().timeZone})</label>
      <input id="recover-since" type="datetime-local" step={1} required value={since} onInput={(e) => setSince(e.currentTarget.value)} />
      <button type="submit" disabled={recover.busy}>
        Recover
      </button>
      <Notice>{result}</Notice>
      <ErrorMessage error={recover.error} context="Recover failed" />
    </form>
  );
}

/** A Date as the value of a datetime-local input (local time, seconds). */
function localInputValue(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}
