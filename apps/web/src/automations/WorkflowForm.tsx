import { useRef, useState } from 'preact/hooks';
import type { WebhookTarget, Workflow, WorkflowInput } from '../api/types';
import { ErrorMessage } from '../components/ErrorMessage';
import { DEFAULT_TEMPLATE, DraftStep, StepEditor, toDrafts, toSteps } from './StepEditor';
import { DEFAULT_SAMPLE_BODY } from './TemplatePreview';
import { focusPageHeadingIfLost, useFocusFirstField } from '../components/focus';

/**
 * Create or edit (PUT) a workflow: an incoming-webhook trigger, then send_webhook and delay steps
 * in order, each template previewed live against a sample trigger body.
 */
export function WorkflowForm({
  initial,
  targets,
  onSubmit,
  onCancel,
}: {
  initial?: Workflow;
  targets: WebhookTarget[];
  onSubmit: (input: WorkflowInput) => Promise<void>;
  onCancel: () => void;
}) {
  const [name, setName] = useState(initial?.name ?? '');
  const [steps, setSteps] = useState<DraftStep[]>(() => (initial ? toDrafts(initial.steps) : [{ type: 'send_webhook', targetId: targets[0]?.id ?? '', body: DEFAULT_TEMPLATE }]));
  const [sampleBody, setSampleBody] = useState(DEFAULT_SAMPLE_BODY);
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  useFocusFirstField(form);
  const [error, setError] = useState<unknown>(undefined);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await onSubmit({ name: name.trim(), trigger: { type: 'incoming_webhook' }, steps: toSteps(steps) });
      focusPageHeadingIfLost();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  const add = (step: DraftStep) => setSteps([...steps, step]);

  return (
    <form ref={form} class="card" onSubmit={submit} method="post" action="#" aria-label={initial ? 'Edit workflow' : 'New workflow'}>
      <div class="field">
        <label for="workflow-name">Name</label>
        <input id="workflow-name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </div>
      <p class="hint">Trigger: incoming webhook (a secret URL, shown once when you activate the workflow).</p>
      <div class="field">
        <label for="sample-body">Sample trigger body (JSON, for the previews below; not saved)</label>
        <textarea id="sample-body" class="mono" rows={4} spellcheck={false} value={sampleBody} onInput={(e) => setSampleBody(e.currentTarget.value)} />
      </div>
      {steps.map((step, index) => (
        <StepEditor
          key={index}
          index={index}
          step={step}
          targets={targets}
          sampleBody={sampleBody}
          workflow={{ id: initial?.id ?? 'wf_preview', name: name.trim() || 'Untitled workflow' }}
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
          {busy ? 'Saving…' : initial ? 'Save workflow' : 'Create workflow'}
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
