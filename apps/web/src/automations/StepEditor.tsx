import type { WebhookTarget, WorkflowStep } from '../api/types';
import { TemplatePreview } from './TemplatePreview';

/** A step as edited: the body template is text until the form is submitted. */
export type DraftStep = { type: 'send_webhook'; targetId: string; body: string } | { type: 'delay'; seconds: string };

export const DEFAULT_TEMPLATE = '{\n  "event": "{{ trigger.body.event }}",\n  "run": "{{ run.id }}"\n}';

/** One step of a workflow: a send_webhook (target and JSON body template) or a delay. */
export function StepEditor({
  index,
  step,
  targets,
  sampleBody,
  workflow,
  onChange,
  onRemove,
}: {
  index: number;
  step: DraftStep;
  targets: WebhookTarget[];
  sampleBody: string;
  workflow: { id: string; name: string };
  onChange: (step: DraftStep) => void;
  onRemove?: () => void;
}) {
  const id = `step-${index}`;
  return (
    <fieldset class="step">
      <legend>
        Step {index + 1}: {step.type === 'send_webhook' ? 'send a webhook' : 'delay'}
      </legend>
      {step.type === 'send_webhook' ? (
        <>
          <div class="field">
            <label for={`${id}-target`}>Target</label>
            <select id={`${id}-target`} required value={step.targetId} onChange={(e) => onChange({ ...step, targetId: e.currentTarget.value })}>
              <option value="">Choose a target…</option>
              {targets.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name} ({t.url})
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for={`${id}-body`}>Body template (JSON)</label>
            <textarea
              id={`${id}-body`}
              class="mono"
              rows={5}
              spellcheck={false}
              value={step.body}
              onInput={(e) => onChange({ ...step, body: e.currentTarget.value })}
              aria-describedby={`${id}-body-hint`}
            />
            <p class="hint" id={`${id}-body-hint`}>
              <code>{'{{ trigger.body.path }}'}</code>, <code>{'{{ trigger.receivedAt }}'}</code>, <code>{'{{ workflow.id }}'}</code>, <code>{'{{ workflow.name }}'}</code>,{' '}
              <code>{'{{ run.id }}'}</code> and <code>{'{{ account.id }}'}</code> are filled in at run time.
            </p>
          </div>
          <TemplatePreview index={index} template={step.body} sampleBody={sampleBody} workflow={workflow} />
        </>
      ) : (
        <div class="field">
          <label for={`${id}-seconds`}>Wait (seconds)</label>
          <input id={`${id}-seconds`} type="number" min={1} max={2592000} required value={step.seconds} onInput={(e) => onChange({ ...step, seconds: e.currentTarget.value })} />
        </div>
      )}
      {onRemove ? (
        <button type="button" onClick={onRemove} aria-label={`Remove step ${index + 1}`}>
          Remove step
        </button>
      ) : null}
    </fieldset>
  );
}

/** Draft steps as the API's steps; a body that is not JSON is refused here, in words. */
export function toSteps(drafts: DraftStep[]) {
  return drafts.map((step, index) => {
    if (step.type === 'delay') return { type: 'delay' as const, seconds: Number(step.seconds) };
    let body: unknown;
    try {
      body = JSON.parse(step.body);
    } catch (error) {
      throw new Error(`Step ${index + 1}: the body template is not valid JSON (${error instanceof Error ? error.message : String(error)}).`);
    }
    return { type: 'send_webhook' as const, targetId: step.targetId, body };
  });
}

/** The API's steps as draft steps, for editing. */
export function toDrafts(steps: WorkflowStep[]): DraftStep[] {
  return steps.map((step) =>
    step.type === 'delay' ? { type: 'delay', seconds: String(step.seconds) } : { type: 'send_webhook', targetId: step.targetId, body: JSON.stringify(step.body, null, 2) },
  );
}
