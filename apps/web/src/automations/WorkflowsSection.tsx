import { useState } from 'preact/hooks';
import { useApi } from '../api/api-context';
import { usePolling } from '../api/use-polling';
import { useResource } from '../api/use-resource';
import type { WebhookTarget, WorkflowInput } from '../api/types';
import { ErrorMessage } from '../components/ErrorMessage';
import { Link } from '../components/Link';
import { StatusBadge } from '../components/StatusBadge';
import { navigate } from '../router';
import { stepSummary } from './step-summary';
import { WorkflowForm } from './WorkflowForm';

/** Workflows: list, and create (then its page, to activate it). */
export function WorkflowsSection({ targets }: { targets: WebhookTarget[] }) {
  const api = useApi();
  const workflows = useResource(() => api.listWorkflows(), [api]);
  usePolling(workflows.reload);
  const [creating, setCreating] = useState(false);

  const create = async (input: WorkflowInput) => {
    const workflow = await api.createWorkflow(input);
    navigate({ name: 'workflow', id: workflow.id });
  };

  return (
    <section aria-labelledby="workflows-title">
      <div class="page-head">
        <h2 id="workflows-title">Workflows</h2>
        {!creating ? (
          <button type="button" class="primary" onClick={() => setCreating(true)}>
            New workflow
          </button>
        ) : null}
      </div>
      {creating && targets.length === 0 ? <p class="notice">Create a webhook target first: send-webhook steps post to one.</p> : null}
      {creating ? <WorkflowForm targets={targets} onSubmit={create} onCancel={() => setCreating(false)} /> : null}
      <ErrorMessage error={workflows.error} context="The workflows could not be loaded" />
      {workflows.data?.length === 0 ? <p>No workflows yet.</p> : null}
      <ul class="cards" aria-label="Workflows">
        {workflows.data?.map((workflow) => (
          <li key={workflow.id} class="card" aria-label={`Workflow ${workflow.name}`}>
            <h3>
              <Link to={{ name: 'workflow', id: workflow.id }}>{workflow.name}</Link>
            </h3>
            <p>
              <StatusBadge status={workflow.state} /> {workflow.steps.map((s) => stepSummary(s, targets)).join(' → ')}
            </p>
            <Link to={{ name: 'workflow', id: workflow.id }} class="button">
              Activate, runs and settings
            </Link>
          </li>
        ))}
      </ul>
    </section>
  );
}
