/**
 * Names for the shapes of the public v3 API the dashboard uses. The shapes themselves are
 * generated from the server's OpenAPI document into openapi.d.ts by `npm run openapi`; none is
 * written by hand here.
 */
import type { components } from './openapi';

type Schemas = components['schemas'];

/** Every error body of the API. */
export type ContractError = Schemas['Error'];

export type Webhook = Schemas['WebhookV3View'];
export type WebhookState = Schemas['WebhookState'];
export type DisabledReason = NonNullable<Webhook['disabledReason']>;
/** The create response alone carries the signing secret. */
export type CreatedWebhook = Schemas['CreatedWebhookV3View'];
export type WebhookInput = Schemas['CreateWebhookDto'];
export type EventType = Schemas['EventTypeView'];

export type DeliveryStatus = Schemas['DeliveryStatus'];
export type DeliveryAttempt = Schemas['DeliveryAttemptV3View'];
export type Delivery = Schemas['DeliveryV3View'];
export type DeliveryPage = Schemas['DeliveryPageV3View'];
export type EventDeliveryList = Schemas['EventDeliveryListV3View'];

/** The body every delivery of an event carries (CONTRACT §3), as the event feed serves it (§9.2). */
export type EventEnvelope = Schemas['EnvelopeView'];
export type EventPage = Schemas['EventFeedPageV3View'];

export type WebhookTarget = Schemas['WebhookTargetView'];
export type WebhookTargetInput = Schemas['WebhookTargetBody'];
export type WorkflowStep = Schemas['SendWebhookStepDoc'] | Schemas['DelayStepDoc'];
export type Workflow = Schemas['WorkflowView'];
export type WorkflowState = Workflow['state'];
export type WorkflowInput = Schemas['WorkflowBodyDoc'];
/** The activate response alone carries the trigger URL. */
export type ActivatedWorkflow = Schemas['ActivatedWorkflowView'];
export type StepAttempt = Schemas['StepAttemptView'];
export type Run = Schemas['RunView'];

export type SendStatus = Schemas['SendStatusV3View'];
/** GET /v3/Send/{id}/Status answers an unknown id (or another account's) with this, as a 404. */
export type SendNotFound = Schemas['SendNotFoundView'];

/** The statuses in the order the delivery filter lists them: every generated one, no other. */
export const DELIVERY_STATUSES = ['pending', 'retrying', 'succeeded', 'failed', 'skipped', 'cancelled'] as const satisfies readonly DeliveryStatus[];
const everyStatusListed: Exclude<DeliveryStatus, (typeof DELIVERY_STATUSES)[number]> extends never ? true : never = true;
void everyStatusListed;

/** GET /v3/Webhook/{id}/stats (CONTRACT §9.3). */
export type WebhookStats = Schemas['WebhookStatsV3View'];
