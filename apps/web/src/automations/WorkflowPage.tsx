import { useState } from 'preact/hooks';
import { useApi } from '../api/api-context';
import { useAction } from '../api/use-action';
import { usePolling } from '../api/use-polling';
import { useResource } from '../api/use-resource';
import { ConfirmButton } from '../components/ConfirmButton';
import { ErrorMessage } from '../components/ErrorMessage';
import { Link } from '../components/Link';
import { Notice } from '../components/Notice';
import { SecretReveal } from '../components/SecretReveal';
import { StatusBadge } from '../components/StatusBadge';
import { Time } from '../components/Time';
import { navigate } from '../router';
import { RunList } from './RunList';
import { stepSummary } from './step-summary';
import { WorkflowForm } from './WorkflowForm';

/** One workflow: activate (trigger URL shown once), deactivate, delete, and its runs. */
export function WorkflowPage({ id }: { id: string }) {
  const api = useApi();
  const workflow = useResource(() => api.getWorkflow(id), [api, id]);
  const targets = useResource(() => api.listTargets(), [api]);
  usePolling(() => Promise.all([workflow.reload(), targets.reload()]));
  const [triggerUrl, setTriggerUrl] = useState<string | null>(null);
  const [notice, setNotice] = useState('');
  const [editing, setEditing] = useState(false);
  const save = async (input: Parameters<typeof api.updateWorkflow>[1]) => {
    await api.updateWorkflow(id, input);
    setEditing(false);
    setNotice('Saved: the next runs use these steps.');
    await workflow.reload();
  };

  const action = useAction(async (what: 'activate' | 'deactivate' | 'delete') => {
    setNotice('');
    if (what === 'activate') {
      const activated = await api.activateWorkflow(id);
      setTriggerUrl(activated.triggerUrl);
    } else if (what === 'deactivate') {
      await api.deactivateWorkflow(id);
      setTriggerUrl(null);
      setNotice('Deactivated: the trigger URL answers 404 from now on.');
    } else {
      await api.deleteWorkflow(id);
      navigate({ name: 'automations' });
      return;
    }
    await workflow.reload();
  });

  const w = workflow.data;
  return (
    <>
      <p class="breadcrumb">
        <Link to={{ name: 'automations' }}>← Automations</Link>
      </p>
      <h1 tabIndex={-1}>{w ? w.name : 'Workflow'}</h1>
      <ErrorMessage error={workflow.error} context="The workflow could not be loaded" />
      {w ? (
        <>
          <p class="state">
            <StatusBadge status={w.state} />{' '}
            {w.state === 'active' ? 'Its trigger URL starts a run for each JSON body it receives.' : w.state === 'draft' ? 'Not yet activated.' : 'Its trigger URL answers 404.'}
          </p>
          <dl class="facts">
            <div>
              <dt>Id</dt>
              <dd class="mono">{w.id}</dd>
            </div>
            <div>
              <dt>Steps</dt>
              <dd>{w.steps.map((s) => stepSummary(s, targets.data ?? [])).join(' → ')}</dd>
            </div>
            <div>
              <dt>Updated</dt>
              <dd>
                <Time iso={w.updatedAt} />
              </dd>
            </div>
          </dl>
          <section class="card" aria-labelledby="workflow-actions-title">
            <h2 id="workflow-actions-title">Actions</h2>
            <div class="actions">
              {w.state === 'active' ? (
                <>
                  <ConfirmButton label="Issue a new trigger URL" title="Issue a new trigger URL?" confirmLabel="Issue new URL" onConfirm={() => void action.run('activate')} disabled={action.busy}>
                    <p>The current trigger URL stops working at once; the new one is shown once.</p>
                  </ConfirmButton>
                  <button type="button" disabled={action.busy} onClick={() => void action.run('deactivate')}>
                    Deactivate
                  </button>
                </>
              ) : (
                <button type="button" class="primary" disabled={action.busy} onClick={() => void action.run('activate')}>
                  Activate
                </button>
              )}
              <button type="button" disabled={action.busy || editing} onClick={() => setEditing(true)}>
                Edit name and steps
              </button>
              <ConfirmButton label="Delete" title="Delete this workflow?" confirmLabel="Delete workflow" danger onConfirm={() => void action.run('delete')} disabled={action.busy}>
                <p>The workflow and its runs are deleted, and its trigger URL answers 404. This cannot be undone.</p>
              </ConfirmButton>
            </div>
            {triggerUrl ? <SecretReveal title="Workflow active: its trigger URL" label="Trigger URL" value={triggerUrl} onDone={() => setTriggerUrl(null)} /> : null}
            <Notice>{notice}</Notice>
            <ErrorMessage error={action.error} />
          </section>
          {editing && targets.data ? <WorkflowForm key={w.updatedAt} initial={w} targets={targets.data} onSubmit={save} onCancel={() => setEditing(false)} /> : null}
          <RunList workflowId={w.id} />
        </>
      ) : workflow.loading ? (
        <p>Loading…</p>
      ) : null}
    </>
  );
}
