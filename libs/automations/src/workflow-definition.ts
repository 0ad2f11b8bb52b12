import { characterCount, invalidParameter, isWellFormedText, NOT_TEXT } from '../../kernel/src';
import { validateTemplate } from '../../webhook-targets/src';
import { IncomingWebhookTrigger, WorkflowStep } from './workflow';

/** Bounds of a workflow definition. */
export const WORKFLOW_LIMITS = {
  maxNameLength: 200,
  maxSteps: 50,
  /** A delay waits 1 second to 30 days. */
  minDelaySeconds: 1,
  maxDelaySeconds: 30 * 24 * 60 * 60,
} as const;

export interface WorkflowDefinition {
  name: string;
  trigger: IncomingWebhookTrigger;
  steps: WorkflowStep[];
}

/**
 * Checks the create/PUT body of a workflow, except that its targets exist (the service checks that
 * against the account). Unknown keys are refused at every level but inside a template body.
 */
export function parseWorkflowDefinition(input: unknown): WorkflowDefinition {
  if (!isObject(input)) throw invalidParameter('the request body must be a JSON object');
  const unknownKey = Object.keys(input).find((k) => !['name', 'trigger', 'steps'].includes(k));
  if (unknownKey !== undefined) throw invalidParameter(`${unknownKey} is not a known property`);
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  if (name.length === 0 || characterCount(name) > WORKFLOW_LIMITS.maxNameLength) {
    throw invalidParameter(`name must be 1 to ${WORKFLOW_LIMITS.maxNameLength} characters`);
  }
  if (!isWellFormedText(name)) throw invalidParameter(NOT_TEXT('name'));
  const trigger = input.trigger;
  if (!isObject(trigger) || trigger.type !== 'incoming_webhook') {
    throw invalidParameter('trigger must be {"type":"incoming_webhook"}');
  }
  onlyKeys(trigger, ['type'], 'trigger');
  if (!Array.isArray(input.steps) || input.steps.length === 0) throw invalidParameter('steps must be a non-empty array');
  if (input.steps.length > WORKFLOW_LIMITS.maxSteps) throw invalidParameter(`steps may hold at most ${WORKFLOW_LIMITS.maxSteps} steps`);
  return { name, trigger: { type: 'incoming_webhook' }, steps: input.steps.map((step, i) => parseStep(step, `steps[${i}]`)) };
}

function parseStep(step: unknown, at: string): WorkflowStep {
  if (!isObject(step)) throw invalidParameter(`${at} must be an object`);
  switch (step.type) {
    case 'send_webhook': {
      onlyKeys(step, ['type', 'targetId', 'body'], at);
      if (typeof step.targetId !== 'string' || step.targetId.length === 0) throw invalidParameter(`${at}.targetId must be a webhook target id`);
      if (!('body' in step)) throw invalidParameter(`${at}.body is required: the JSON template of the request body`);
      const problem = validateTemplate(step.body, `${at}.body`);
      if (problem) throw invalidParameter(problem);
      return { type: 'send_webhook', targetId: step.targetId, body: step.body };
    }
    case 'delay': {
      onlyKeys(step, ['type', 'seconds'], at);
      const { seconds } = step;
      if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < WORKFLOW_LIMITS.minDelaySeconds || seconds > WORKFLOW_LIMITS.maxDelaySeconds) {
        throw invalidParameter(`${at}.seconds must be an integer from ${WORKFLOW_LIMITS.minDelaySeconds} to ${WORKFLOW_LIMITS.maxDelaySeconds} (30 days)`);
      }
      return { type: 'delay', seconds };
    }
    default:
      throw invalidParameter(`${at}.type must be one of send_webhook, delay`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function onlyKeys(value: Record<string, unknown>, allowed: string[], at: string): void {
  const extra = Object.keys(value).find((k) => !allowed.includes(k));
  if (extra !== undefined) throw invalidParameter(`${at}.${extra} is not a known property`);
}
