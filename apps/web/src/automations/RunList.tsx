import { useApi } from '../api/api-context';
import { useLiveList } from '../api/use-live-list';
import type { Run } from '../api/types';
import { ErrorMessage } from '../components/ErrorMessage';
import { StatusBadge } from '../components/StatusBadge';
import { Time } from '../components/Time';
import { visibleText } from '../components/visible-text';

/** A workflow's runs, newest first, kept live and paged, each with its trigger body and its steps' attempts. */
export function RunList({ workflowId }: { workflowId: string }) {
  const api = useApi();
  const runs = useLiveList((page) => api.listRuns(workflowId, page).then((p) => ({ items: p.runs, nextCursor: p.nextCursor })), [api, workflowId]);
  return (
    <section aria-labelledby="runs-title">
      <div class="page-head">
        <h2 id="runs-title">Runs</h2>
        <button type="button" onClick={() => void runs.reload()} disabled={runs.busy}>
          Refresh runs
        </button>
      </div>
      <ErrorMessage error={runs.error} context="The runs could not be loaded" />
      {runs.items?.length === 0 ? <p>No runs yet: post JSON to the trigger URL to start one.</p> : null}
      <ol class="cards" aria-label="Runs, newest first">
        {runs.items?.map((run) => <RunItem key={run.id} run={run} />)}
      </ol>
      {runs.nextCursor ? (
        <button type="button" onClick={() => void runs.loadOlder()} disabled={runs.busy}>
          Load older runs
        </button>
      ) : null}
    </section>
  );
}

function RunItem({ run }: { run: Run }) {
  return (
    <li class="card run" aria-label={`Run ${run.id}, ${run.status}`}>
      <div class="delivery-head">
        <StatusBadge status={run.status} />
        <span class="mono">{run.id}</span>
      </div>
      <dl class="facts">
        <div>
          <dt>Started</dt>
          <dd>
            <Time iso={run.startedAt} />
          </dd>
        </div>
        <div>
          <dt>Finished</dt>
          <dd>
            <Time iso={run.finishedAt} fallback="still running" />
          </dd>
        </div>
      </dl>
      <details>
        <summary>Trigger body</summary>
        <pre class="body">{visibleText(JSON.stringify(run.trigger.body, null, 2))}</pre>
      </details>
      <ol class="steps">
        {run.steps.map((step, index) => (
          <li key={index}>
            <p>
              Step {index + 1} ({step.type === 'send_webhook' ? 'send webhook' : 'delay'}): <StatusBadge status={step.status} />
            </p>
            {step.attempts.length > 0 ? (
              <ol class="attempts">
                {step.attempts.map((a, i) => (
                  <li key={i}>
                    Attempt {i + 1}: <Time iso={a.at} /> · {a.durationMs} ms ·{' '}
                    {a.httpStatus !== null ? (
                      <span class={a.httpStatus >= 200 && a.httpStatus < 300 ? 'ok' : 'ko'}>HTTP {a.httpStatus}</span>
                    ) : (
                      <span class="ko">error: {a.error ?? 'unknown'}</span>
                    )}
                  </li>
                ))}
              </ol>
            ) : null}
          </li>
        ))}
      </ol>
    </li>
  );
}
