import type { WebhookTarget, WorkflowStep } from '../api/types';

/** "send to CRM" or "wait 60 s". */
export function stepSummary(step: WorkflowStep, targets: WebhookTarget[]): string {
  if (step.type === 'delay') return `wait ${step.seconds} s`;
  const target = targets.find((t) => t.id === step.targetId);
  return `send to ${target ? target.name : step.targetId}`;
}
