import { useState } from 'preact/hooks';
import type { WebhookTarget, WorkflowInput } from '../api/types';
import { ErrorMessage } from '../components/ErrorMessage';
import { DEFAULT_TEMPLATE, DraftStep, StepEditor, toSteps } from './StepEditor';

/** Create a workflow: an incoming-webhook trigger, then send_webhook and delay steps in order. */
export function WorkflowForm({ targets, onSubmit, onCancel }: { targets: WebhookTarget[]; onSubmit: (input: WorkflowInput) => Promise<void>; onCancel: () => void }) {
  const [name, setName] = useState('');
  const [steps, setSteps] = useState<DraftStep[]>([{ type: 'send_webhook', targetId: targets[0]?.id ?? '', body: DEFAULT_TEMPLATE }]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await onSubmit({ name: name.trim(), trigger: { type: 'incoming_webhook' }, steps: toSteps(steps) });
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  const add = (step: DraftStep) => setSteps([...steps, step]);

  return (
    <form class="card" onSubmit={submit} method="post" action="#" aria-label="New workflow">
      <div class="field">
        <label for="workflow-name">Name</label>
        <input id="workflow-name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </div>
      <p class="hint">Trigger: incoming webhook (a secret URL, shown once when you activate the workflow).</p>
      {steps.map((step, index) => (
        <StepEditor
          key={index}
          index={index}
          step={step}
          targets={targets}
          onChange={(next) => setSteps(steps.map((s, i) => (i === index ? next : s)))}
          onRemove={steps.length > 1 ? () => setSteps(steps.filter((_, i) => i !== index)) : undefined}
        />
      ))}
      <div class="actions">
        <button type="button" onClick={() => add({ type: 'send_webhook', targetId: targets[0]?.id ?? '', body: DEFAULT_TEMPLATE })}>
          Add a send-webhook step
        </button>
        <button type="button" onClick={() => add({ type: 'delay', seconds: '60' })}>
          Add a delay step
        </button>
      </div>
      <ErrorMessage error={error} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Creating…' : 'Create workflow'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
