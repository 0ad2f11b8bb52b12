/** Workflows (CONTRACT §6): a trigger and steps run in order; draft -> active <-> inactive. */
export type WorkflowState = 'draft' | 'active' | 'inactive';

export interface IncomingWebhookTrigger {
  type: 'incoming_webhook';
}

export interface SendWebhookStep {
  type: 'send_webhook';
  targetId: string;
  /** JSON template (libs/webhook-targets template.ts). */
  body: unknown;
}

export interface DelayStep {
  type: 'delay';
  seconds: number;
}

export type WorkflowStep = SendWebhookStep | DelayStep;

export interface Workflow {
  id: string;
  accountId: number;
  name: string;
  state: WorkflowState;
  trigger: IncomingWebhookTrigger;
  steps: WorkflowStep[];
  /** SHA-256 of the current trigger token while active; null otherwise (no URL answers). */
  triggerTokenHash: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface WorkflowView {
  id: string;
  name: string;
  state: WorkflowState;
  trigger: IncomingWebhookTrigger;
  steps: WorkflowStep[];
  createdAt: string;
  updatedAt: string;
}

export function toWorkflowView(workflow: Workflow): WorkflowView {
  return {
    id: workflow.id,
    name: workflow.name,
    state: workflow.state,
    trigger: workflow.trigger,
    steps: workflow.steps,
    createdAt: workflow.createdAt.toISOString(),
    updatedAt: workflow.updatedAt.toISOString(),
  };
}

/** The target ids a workflow's steps call, each once. */
export function targetIdsOf(steps: readonly WorkflowStep[]): string[] {
  return [...new Set(steps.flatMap((s) => (s.type === 'send_webhook' ? [s.targetId] : [])))];
}
