/** The shapes of the public v3 API the dashboard uses (CONTRACT.md §1, §2, §5, §6). */

/** Every error body of the API. */
export interface ContractError {
  code: string;
  message: string;
}

export type WebhookState = 'enabled' | 'disabled';
export type DisabledReason = 'consecutive_failures' | 'manual';

export interface Webhook {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  state: WebhookState;
  apiVersion: string;
  consecutiveFailures: number;
  disabledAt: string | null;
  /** Null while enabled (CONTRACT §9.3). */
  disabledReason: DisabledReason | null;
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
  /** The headers the server sent, names in lowercase (CONTRACT §9.3); absent from servers that do not record them. */
  requestHeaders?: Record<string, string>;
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

/** GET /v3/Webhook/{id}/stats (CONTRACT §9.3). */
export interface WebhookStats {
  since: string;
  until: string;
  deliveries: Record<DeliveryStatus, number>;
  attempts: { total: number; succeeded: number; failed: number };
  successRate: number | null;
  latencyMs: { p50: number | null; p95: number | null };
  buckets: Array<{ start: string; succeeded: number; failed: number }>;
}

/** The body every delivery of an event carries (CONTRACT §3), as the event feed serves it (§9.2). */
export interface EventEnvelope {
  id: string;
  type: string;
  /** Unix seconds. */
  created: number;
  apiVersion: string;
  account: { id: number; name: string };
  data: Record<string, unknown>;
}

export interface EventPage {
  events: EventEnvelope[];
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
  /** On update: a new key, or null to stop signing; left out, the current key stays. */
  signingKey?: string | null;
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
