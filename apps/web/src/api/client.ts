import type {
  ActivatedWorkflow,
  ContractError,
  CreatedWebhook,
  DeliveryPage,
  DeliveryStatus,
  EventDeliveryList,
  EventEnvelope,
  EventPage,
  EventType,
  Run,
  SendNotFound,
  SendStatus,
  Webhook,
  WebhookInput,
  WebhookStats,
  WebhookTarget,
  WebhookTargetInput,
  Workflow,
  WorkflowInput,
} from './types';

/**
 * An answer of the API that was not a success, in the contract's words: `{code, message}` (a
 * ContractError code), or `network_error` / `http_<status>` when no such body arrived.
 */
export class ApiError extends Error implements Omit<ContractError, 'code'> {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface ApiClientOptions {
  /** Same-origin by default: the page is served by the API app itself. */
  baseUrl?: string;
  fetch?: typeof fetch;
  /** Called on every 401, before the error is thrown (the dashboard signs out). */
  onUnauthorized?: (error: ApiError) => void;
}

/**
 * The public v3 API, and nothing else. The API key travels in the `api-key` header only:
 * never in a URL, so it cannot end up in an access log, the history or a Referer.
 */
export class ApiClient {
  private readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;

  constructor(
    private readonly apiKey: string,
    private readonly options: ApiClientOptions = {},
  ) {
    this.baseUrl = options.baseUrl ?? '';
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
  }

  // ---------------------------------------------------------------- event webhooks (§2)

  eventTypes = () => this.call<{ types: EventType[] }>('GET', '/v3/events/types').then((r) => r.types);
  listWebhooks = () => this.call<{ webhooks: Webhook[] }>('GET', '/v3/Webhook').then((r) => r.webhooks);
  getWebhook = (id: string) => this.call<Webhook>('GET', `/v3/Webhook/${seg(id)}`);
  createWebhook = (input: WebhookInput) => this.call<CreatedWebhook>('POST', '/v3/Webhook', input);
  updateWebhook = (id: string, input: WebhookInput) => this.call<Webhook>('PUT', `/v3/Webhook/${seg(id)}`, input);
  deleteWebhook = (id: string) => this.call<void>('DELETE', `/v3/Webhook/${seg(id)}`);
  enableWebhook = (id: string) => this.call<Webhook>('POST', `/v3/Webhook/${seg(id)}/enable`);
  disableWebhook = (id: string) => this.call<Webhook>('POST', `/v3/Webhook/${seg(id)}/disable`);
  rotateSecret = (id: string) => this.call<{ secret: string }>('POST', `/v3/Webhook/${seg(id)}/rotate-secret`);
  sendTest = (id: string, type?: string) => this.call<{ eventId: string }>('POST', `/v3/Webhook/${seg(id)}/test`, type ? { type } : undefined);

  listDeliveries = (id: string, q: { status?: DeliveryStatus; cursor?: string; limit?: number } = {}) =>
    this.call<DeliveryPage>('GET', `/v3/Webhook/${seg(id)}/deliveries${query({ status: q.status, cursor: q.cursor, limit: q.limit ? String(q.limit) : undefined })}`);
  retryDelivery = (id: string, deliveryId: string) => this.call<object>('POST', `/v3/Webhook/${seg(id)}/deliveries/${seg(deliveryId)}/retry`);
  recover = (id: string, since: string) => this.call<{ count: number }>('POST', `/v3/Webhook/${seg(id)}/recover`, { since });
  webhookStats = (id: string, since?: string) => this.call<WebhookStats>('GET', `/v3/Webhook/${seg(id)}/stats${query({ since })}`);

  // ---------------------------------------------------------------- the event feed (§9.2)

  listEvents = (q: { type?: string; since?: string; limit?: number; cursor?: string } = {}) =>
    this.call<EventPage>('GET', `/v3/events${query({ type: q.type, since: q.since, limit: q.limit === undefined ? undefined : String(q.limit), cursor: q.cursor })}`);
  getEvent = (id: string) => this.call<EventEnvelope>('GET', `/v3/events/${seg(id)}`);
  eventDeliveries = (id: string) => this.call<EventDeliveryList>('GET', `/v3/events/${seg(id)}/deliveries`);

  // ---------------------------------------------------------------- automations (§6)

  listTargets = () => this.call<{ targets: WebhookTarget[] }>('GET', '/v3/automations/webhook-targets').then((r) => r.targets);
  createTarget = (input: WebhookTargetInput) => this.call<WebhookTarget>('POST', '/v3/automations/webhook-targets', input);
  updateTarget = (id: string, input: WebhookTargetInput) => this.call<WebhookTarget>('PUT', `/v3/automations/webhook-targets/${seg(id)}`, input);
  deleteTarget = (id: string) => this.call<void>('DELETE', `/v3/automations/webhook-targets/${seg(id)}`);

  listWorkflows = () => this.call<{ workflows: Workflow[] }>('GET', '/v3/automations/workflows').then((r) => r.workflows);
  getWorkflow = (id: string) => this.call<Workflow>('GET', `/v3/automations/workflows/${seg(id)}`);
  createWorkflow = (input: WorkflowInput) => this.call<Workflow>('POST', '/v3/automations/workflows', input);
  updateWorkflow = (id: string, input: WorkflowInput) => this.call<Workflow>('PUT', `/v3/automations/workflows/${seg(id)}`, input);
  deleteWorkflow = (id: string) => this.call<void>('DELETE', `/v3/automations/workflows/${seg(id)}`);
  activateWorkflow = (id: string) => this.call<ActivatedWorkflow>('POST', `/v3/automations/workflows/${seg(id)}/activate`);
  deactivateWorkflow = (id: string) => this.call<Workflow>('POST', `/v3/automations/workflows/${seg(id)}/deactivate`);
  listRuns = (id: string, q: { cursor?: string; limit?: number } = {}) =>
    this.call<{ runs: Run[]; nextCursor: string | null }>('GET', `/v3/automations/workflows/${seg(id)}/runs${query({ cursor: q.cursor, limit: q.limit === undefined ? undefined : String(q.limit) })}`);

  // ---------------------------------------------------------------- send status (§5)

  /** The status of a send, or the contract's `{id, status: "not_found"}` answer. */
  sendStatus = async (id: string): Promise<SendStatus | SendNotFound> => {
    const response = await this.send('GET', `/v3/Send/${seg(id)}/Status`);
    const body = await readJson(response);
    if (response.ok) return body as SendStatus;
    if (response.status === 404 && isRecord(body) && body.status === 'not_found') return body as unknown as SendNotFound;
    throw this.failure(response, body);
  };

  // ---------------------------------------------------------------- plumbing

  private async call<T>(method: Method, path: string, body?: unknown): Promise<T> {
    const response = await this.send(method, path, body);
    const parsed = await readJson(response);
    if (!response.ok) throw this.failure(response, parsed);
    return parsed as T;
  }

  private async send(method: Method, path: string, body?: unknown): Promise<Response> {
    const headers: Record<string, string> = { 'api-key': this.apiKey, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    try {
      return await this.fetchImpl(this.baseUrl + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        cache: 'no-store',
        credentials: 'omit',
        referrerPolicy: 'no-referrer',
      });
    } catch (error) {
      throw new ApiError(0, 'network_error', `The server could not be reached (${error instanceof Error ? error.message : String(error)}).`);
    }
  }

  private failure(response: Response, body: unknown): ApiError {
    const error =
      isRecord(body) && typeof body.code === 'string' && typeof body.message === 'string'
        ? new ApiError(response.status, body.code, body.message)
        : new ApiError(response.status, `http_${response.status}`, `The server answered HTTP ${response.status} without an explanation.`);
    if (response.status === 401) this.options.onUnauthorized?.(error);
    return error;
  }
}

/** `?a=1&b=2` of the parameters given, or nothing. */
function query(params: Record<string, string | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== '') search.set(key, value);
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** An id as one path segment: ids come from the API, but a pasted one may hold anything. */
function seg(value: string): string {
  return encodeURIComponent(value);
}

async function readJson(response: Response): Promise<unknown> {
  if (response.status === 204) return undefined;
  const text = await response.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
