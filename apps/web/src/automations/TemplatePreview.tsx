import { useMemo } from 'preact/hooks';
// The server's own renderer (pure TypeScript, no Node built-ins), bundled as is: the preview is
// exactly what a run sends, not a re-implementation.
import { parseExactJson, stringifyExactJson } from '../../../../libs/webhook-targets/src/exact-json';
import { renderStepBody, TemplateError, validateTemplate } from '../../../../libs/webhook-targets/src/template';
import { visibleText } from '../components/visible-text';

/** Sample values of the run-time variables that the dashboard cannot know in advance. */
const SAMPLE_RUN = { id: 'run_preview' };
const SAMPLE_ACCOUNT = { id: 1 };

export const DEFAULT_SAMPLE_BODY = '{\n  "event": "order.paid",\n  "order": { "id": "o-42", "total": 12.5 }\n}';

/** The body a send_webhook step would send, rendered live from its template and a sample trigger body. */
export function TemplatePreview({ index, template, sampleBody, workflow }: { index: number; template: string; sampleBody: string; workflow: { id: string; name: string } }) {
  const receivedAt = useMemo(() => new Date().toISOString(), []);
  const result = useMemo(() => preview(template, sampleBody, { ...workflow }, receivedAt), [template, sampleBody, workflow.id, workflow.name, receivedAt]);
  return (
    <div class="template-preview">
      <p class="hint">
        Preview: the body this step sends for the sample trigger body (run.id and account.id are sample values).
      </p>
      {result.ok ? (
        <pre class="body" aria-label={`Preview of step ${index + 1}`}>
          {visibleText(result.text)}
        </pre>
      ) : (
        <p class="error" aria-label={`Preview of step ${index + 1}`}>
          {result.message}
        </p>
      )}
    </div>
  );
}

type Preview = { ok: true; text: string } | { ok: false; message: string };

function preview(templateText: string, sampleText: string, workflow: { id: string; name: string }, receivedAt: string): Preview {
  const template = parse(templateText, 'The body template');
  if (!template.ok) return template;
  // Read as a run reads it: integers past 2^53 keep their digits.
  const sample = parse(sampleText, 'The sample trigger body', parseExactJson);
  if (!sample.ok) return sample;
  const refused = validateTemplate(template.value);
  if (refused) return { ok: false, message: `The server would refuse this template: ${refused}.` };
  try {
    const body = renderStepBody(template.value, { trigger: { body: sample.value, receivedAt }, workflow, run: SAMPLE_RUN, account: SAMPLE_ACCOUNT });
    return { ok: true, text: stringifyExactJson(parseExactJson(body), 2) };
  } catch (error) {
    if (!(error instanceof TemplateError)) throw error;
    return { ok: false, message: `With this sample body the step would fail without a call: ${error.message}.` };
  }
}

function parse(text: string, what: string, read: (text: string) => unknown = JSON.parse): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: read(text) };
  } catch (error) {
    return { ok: false, message: `${what} is not valid JSON (${error instanceof Error ? error.message : String(error)}).` };
  }
}
