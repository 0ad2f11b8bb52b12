import { useApi } from '../api/api-context';
import { usePolling } from '../api/use-polling';
import { useResource } from '../api/use-resource';
import { TargetsSection } from './TargetsSection';
import { WorkflowsSection } from './WorkflowsSection';

/** Automations: webhook targets (kind B) and workflows started by an incoming webhook (kind C). */
export function AutomationsPage() {
  const api = useApi();
  const targets = useResource(() => api.listTargets(), [api]);
  usePolling(targets.reload);
  return (
    <>
      <h1 tabIndex={-1}>Automations</h1>
      <p class="lead">A workflow starts when its secret trigger URL receives JSON, then runs its steps: send a webhook to a target, or wait.</p>
      <TargetsSection targets={targets} />
      <WorkflowsSection targets={targets.data ?? []} />
    </>
  );
}
