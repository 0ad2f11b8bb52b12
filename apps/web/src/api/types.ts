/** The shapes of the public v3 API the dashboard uses (CONTRACT.md §1, §2, §5, §6). */

/** Every error body of the API. */
export interface ContractError {
  code: string;
  message: string;
}

export type WebhookState = 'enabled' | 'disabled';

export interface Webhook {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  state: WebhookState;
  apiVersion: string;
  consecutiveFailures: number;
  disabledAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The create response alone carries the signing secret. */
export interface CreatedWebhook extends Webhook {
  secret: string;
}

export interface WebhookInput {
  url: string;
  events: string[];
  description?: string;
}

export interface EventType {
  type: string;
  group: string;
  description: string;
  schema: object;
}

export const DELIVERY_STATUSES = ['pending', 'retrying', 'succeeded', 'failed', 'skipped', 'cancelled'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface DeliveryAttempt {
  at: string;
  durationMs: number;
  httpStatus: number | null;
  error: string | null;
  responseBody: string | null;
}

export interface Delivery {
  id: string;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: DeliveryAttempt[];
  nextAttemptAt: string | null;
  createdAt: string;
}

export interface DeliveryPage {
  deliveries: Delivery[];
  nextCursor: string | null;
}

export interface WebhookTarget {
  id: string;
  name: string;
  url: string;
  headers: Record<string, string>;
  signed: boolean;
  createdAt: string;
  updatedAt: string;
  /** Only in the response that generated it. */
  signingKey?: string;
}

export interface WebhookTargetInput {
  name: string;
  url: string;
  headers?: Record<string, string>;
  signingKey?: string;
  generateSigningKey?: true;
}

export type WorkflowStep = { type: 'send_webhook'; targetId: string; body: unknown } | { type: 'delay'; seconds: number };

export type WorkflowState = 'draft' | 'active' | 'inactive';

export interface Workflow {
  id: string;
  name: string;
  state: WorkflowState;
  trigger: { type: 'incoming_webhook' };
  steps: WorkflowStep[];
  createdAt: string;
  updatedAt: string;
}

export interface WorkflowInput {
  name: string;
  trigger: { type: 'incoming_webhook' };
  steps: WorkflowStep[];
}

/** The activate response alone carries the trigger URL. */
export interface ActivatedWorkflow extends Workflow {
  triggerUrl: string;
}

export interface StepAttempt {
  at: string;
  durationMs: number;
  httpStatus: number | null;
  error: string | null;
}

export interface Run {
  id: string;
  status: 'running' | 'succeeded' | 'failed';
  startedAt: string;
  finishedAt: string | null;
  trigger: { body: unknown };
  steps: Array<{ type: WorkflowStep['type']; status: string; attempts: StepAttempt[] }>;
}

export interface SendStatus {
  id: string;
  status: 'queued' | 'scheduled' | 'sent' | 'deferred' | 'delivered' | 'bounced';
  email: string;
  diagCode: string | null;
  bounceType: 'hard' | 'soft' | null;
  createdAt: string;
  updatedAt: string;
  history: Array<{ status: string; at: string; diagCode: string | null }>;
}

/** GET /v3/Send/{id}/Status answers an unknown id (or another account's) with this, as a 404. */
export interface SendNotFound {
  id: string;
  status: 'not_found';
}
